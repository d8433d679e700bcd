import { formatUsdc } from '../../shared/money.js';
import type { ReceivedTransfer } from './received-transfer.js';

/** A received transfer as the API shows it. */
export function presentReceivedTransfer(record: ReceivedTransfer) {
  const { transfer } = record;
  return {
    id: record.id,
    object: 'received_transfer' as const,
    status: record.status,
    reason: record.reason,
    network: transfer.network,
    transactionHash: transfer.txHash,
    logIndex: transfer.logIndex,
    from: transfer.from,
    to: transfer.to,
    amount: formatUsdc(transfer.value),
    currency: 'USDC' as const,
    blockNumber: transfer.blockNumber.toString(),
    blockTime: transfer.blockTime.toISOString(),
    invoiceId: record.invoiceId,
    appliedInvoiceId: record.appliedInvoiceId,
    paymentIntentId: record.paymentIntentId,
    note: record.note,
    createdAt: record.createdAt.toISOString(),
    resolvedAt: record.resolvedAt?.toISOString() ?? null,
  };
}
