import { formatUsdc } from '../../shared/money.js';
import { formatInvoiceNumber, type Invoice } from '../invoices/index.js';
import type { PaymentIntent } from './payment-intent.js';

/**
 * The receipt of a paid invoice as the API and the portal show it. Callers pass what
 * PaymentService.receipt returns: a paid invoice and its succeeded, mined payment.
 */
export function presentReceipt(invoice: Invoice, payment: PaymentIntent) {
  return {
    invoiceId: invoice.id,
    number: formatInvoiceNumber(invoice.number),
    amount: formatUsdc(payment.amount),
    currency: 'USDC' as const,
    network: payment.network,
    payer: payment.payer,
    recipient: payment.payTo,
    transactionHash: payment.txHash!,
    blockNumber: payment.blockNumber!.toString(),
    paidAt: invoice.paidAt!.toISOString(),
    paymentIntentId: payment.id,
    externalId: invoice.externalId,
  };
}

/** The payer's last attempt, for a progress display: no payer, nothing the chain does not show. */
export function presentAttempt(intent: PaymentIntent) {
  return {
    id: intent.id,
    status: intent.status,
    failureReason: intent.failureReason,
    method: intent.method,
    network: intent.network,
    transactionHash: intent.txHash,
    submittedAt: intent.submittedAt.toISOString(),
    finishedAt: intent.finishedAt?.toISOString() ?? null,
  };
}

export type PaymentAttemptView = ReturnType<typeof presentAttempt>;
