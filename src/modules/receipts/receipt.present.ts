import { formatUsdc } from '../../shared/money.js';
import type { Receipt } from './receipt.js';

/** The receipt of a paid invoice as the API and the portal show it. */
export function presentReceipt(receipt: Receipt) {
  const { invoice, payment } = receipt;
  return {
    receiptNumber: receipt.receiptNumber,
    invoiceId: receipt.invoiceId,
    number: invoice.number,
    description: invoice.description,
    merchant: receipt.merchant,
    amount: formatUsdc(payment.amount),
    currency: 'USDC' as const,
    network: payment.network,
    chainId: receipt.network.chainId,
    payer: payment.payer,
    recipient: payment.payTo,
    transactionHash: payment.txHash!,
    transactionUrl: receipt.transactionUrl,
    blockNumber: payment.blockNumber!.toString(),
    paidAt: invoice.paidAt!.toISOString(),
    paymentIntentId: payment.id,
    externalId: invoice.externalId,
  };
}
