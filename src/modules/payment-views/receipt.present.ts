import { formatUsdc } from '../../shared/money.js';
import type { InvoiceLabel, PaymentIntent } from '../payment-engine/index.js';

/**
 * The receipt of a paid invoice as the API and the portal show it. Callers pass what
 * PaymentService.receipt returns: a paid invoice and its succeeded, mined payment.
 */
export function presentReceipt(invoiceId: string, invoice: InvoiceLabel, payment: PaymentIntent) {
  return {
    invoiceId,
    number: invoice.number,
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
