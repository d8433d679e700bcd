import type { PaymentIntent } from './payment-api.js';

/**
 * The merchant's own order, as saved when the invoice was created
 * (docs/spec/merchant-api-core-v1.1.0.md, Recommended integration flow).
 */
export interface Order {
  /** The merchant's order id; sent as the invoice's `externalId`. */
  readonly id: string;
  /** The invoice id the service returned for this order, or null if only `externalId` links them. */
  readonly invoiceId: string | null;
  /** What the buyer must pay, in USDC ("12.5" or "12.500000"). */
  readonly amount: string;
  /** The workspace wallet the invoice pays to. */
  readonly recipient: string;
}

/** Where the receiver finds orders. Replace the memory store with a query on your orders table. */
export interface OrderStore {
  /** The order a payment intent belongs to, by invoice id first, then by order reference. */
  find(intent: Pick<PaymentIntent, 'invoiceId' | 'externalId'>): Promise<Order | undefined>;
}

export class MemoryOrderStore implements OrderStore {
  constructor(private readonly orders: readonly Order[]) {}

  async find(intent: Pick<PaymentIntent, 'invoiceId' | 'externalId'>): Promise<Order | undefined> {
    return (
      this.orders.find((order) => order.invoiceId === intent.invoiceId) ??
      this.orders.find((order) => order.id === intent.externalId)
    );
  }
}

/**
 * Step 5's comparison of the service's intent with the order. `processing` can still change, so it
 * is `retry`; every other difference is final and must reach a person, not a retry loop.
 */
export type IntentMatch =
  | { ok: true }
  | { ok: false; retry: true; reason: 'still_processing' }
  | {
      ok: false;
      retry: false;
      reason:
        | 'intent_mismatch'
        | 'payment_failed'
        | 'currency_mismatch'
        | 'amount_mismatch'
        | 'recipient_mismatch'
        | 'invoice_mismatch';
    };

export function matchIntent(intent: PaymentIntent, order: Order, paymentIntentId: string): IntentMatch {
  if (intent.id !== paymentIntentId) return { ok: false, retry: false, reason: 'intent_mismatch' };
  if (intent.status === 'processing') return { ok: false, retry: true, reason: 'still_processing' };
  if (intent.status !== 'succeeded') return { ok: false, retry: false, reason: 'payment_failed' };
  if (intent.currency !== 'USDC') return { ok: false, retry: false, reason: 'currency_mismatch' };
  const paid = usdcMicros(intent.amount);
  if (paid === undefined || paid !== usdcMicros(order.amount))
    return { ok: false, retry: false, reason: 'amount_mismatch' };
  // Addresses are hex; the service may spell them lower case or checksummed.
  if (intent.recipient.toLowerCase() !== order.recipient.toLowerCase())
    return { ok: false, retry: false, reason: 'recipient_mismatch' };
  const sameInvoice = order.invoiceId !== null ? intent.invoiceId === order.invoiceId : intent.externalId === order.id;
  if (!sameInvoice) return { ok: false, retry: false, reason: 'invoice_mismatch' };
  return { ok: true };
}

/** USDC micro-units of a decimal string, compared as integers so "12.5" equals "12.500000". */
export function usdcMicros(text: string): bigint | undefined {
  const match = /^(0|[1-9]\d*)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) return undefined;
  return BigInt(match[1] ?? '0') * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}
