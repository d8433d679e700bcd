import type { LogTarget } from '../../shared/operator-log.js';
import type { WorkspaceEvent } from './event.js';

/** What a payment event's `paymentIntent` says that its line uses. */
type PaymentFacts = {
  invoiceNumber?: string | null;
  amountReceived?: string;
  network?: string;
  transactionHash?: string | null;
  failureReason?: string | null;
};

/** What an operator is told of each payment event, once it committed; the wording takes the payment's facts. */
const PAYMENT_LINES: Partial<Record<string, { warn?: true; say: (payment: PaymentFacts, invoice: string) => string }>> =
  {
    'payment_intent.succeeded': {
      say: (payment, invoice) =>
        `payment recorded: ${payment.amountReceived} USDC for ${invoice} on ${payment.network}`,
    },
    'payment_intent.overpaid': {
      warn: true,
      say: (payment, invoice) =>
        `payment recorded beside ${invoice}, which was already paid or cancelled: ${payment.amountReceived} USDC on ${payment.network}, for the merchant to settle`,
    },
    'payment_intent.failed': {
      say: (payment, invoice) => `payment for ${invoice} failed: ${payment.failureReason}`,
    },
    'payment_intent.reverted': {
      warn: true,
      say: (payment, invoice) =>
        `payment for ${invoice} reverted: a reorganisation of ${payment.network} took its transaction out of the chain; the invoice takes a payment again`,
    },
  };

/** Tells the operator of the payment events among `events`, appended with `ids` and committed. */
export function logPaymentEvents(log: LogTarget, events: readonly WorkspaceEvent[], ids: readonly bigint[]): void {
  for (const [index, event] of events.entries()) {
    const line = PAYMENT_LINES[event.type];
    if (!line) continue;
    const payment = (event.data as { paymentIntent?: PaymentFacts }).paymentIntent ?? {};
    const fields = {
      workspaceId: event.workspaceId,
      invoiceId: event.invoiceId,
      paymentIntentId: event.paymentIntentId,
      network: payment.network,
      transactionHash: payment.transactionHash ?? undefined,
      eventId: ids[index]?.toString(),
    };
    const message = line.say(payment, payment.invoiceNumber ?? event.invoiceId ?? 'an invoice');
    if (line.warn) log.warn(fields, message);
    else log.info(fields, message);
  }
}
