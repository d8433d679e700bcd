import type { Network } from '../../chain/networks.js';
import type { CreditPurchaseId } from '../credit-purchases/index.js';
import type { InvoiceId } from '../invoices/index.js';

/**
 * What a payment pays: a merchant's invoice, or a workspace's credit purchase (paid to the operator).
 * Both go through the same engine — authorizations, submitted transactions, x402, settlement and the
 * claim of a transfer — and differ only in their state machine and in what they announce: an invoice's
 * attempts reach the change feed and webhooks, a purchase's reach nobody but the purchase itself.
 */
export type OrderRef =
  | { readonly kind: 'invoice'; readonly id: InvoiceId }
  | { readonly kind: 'credit_purchase'; readonly id: CreditPurchaseId };

export const invoiceOrder = (id: InvoiceId): OrderRef => ({ kind: 'invoice', id });
export const purchaseOrder = (id: CreditPurchaseId): OrderRef => ({ kind: 'credit_purchase', id });

/** What the engine needs to know of an order it takes a payment for. */
export interface PayableOrder {
  readonly ref: OrderRef;
  /** USDC micro-units: exactly this is paid. */
  readonly amount: bigint;
  /** The only address that may be paid, lowercase. */
  readonly payTo: string;
  /** The networks it may be paid on. */
  readonly networks: readonly Network[];
  readonly createdAt: Date;
  /** Payments must be started before it (a transfer sent in time may be found after it). */
  readonly expiresAt: Date;
  /** Grows with each renewal of an invoice link; a purchase is never renewed (always 1). */
  readonly linkVersion: number;
  /** When the current link version was issued: the invoice's creation or its latest renewal. */
  readonly linkIssuedAt: Date;
  /** What a payer is shown it is for (the x402 resource description). */
  readonly description: string;
}

/** A payment step refused by the order's state machine: the code names why (or `noop`). */
export type StepResult = { readonly ok: true } | { readonly ok: false; readonly code: string };

/** Another payment of the order already holds it `processing`. */
export function heldByAnother(result: StepResult): boolean {
  return !result.ok && (result.code === 'invoice_processing' || result.code === 'purchase_processing');
}
