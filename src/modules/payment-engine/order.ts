import type { Network } from '../../chain/networks.js';
import type { Executor } from '../../db/database.js';
import type { LockedRows } from '../../db/locked-rows.js';
import type { WorkspaceWrites } from '../events/index.js';
import type { WorkspaceId } from '../../shared/ids.js';

/** The kinds of order the engine takes payments for. */
export type OrderKind = 'invoice' | 'credit_purchase';

/**
 * What a payment pays: a merchant's invoice, or a workspace's credit purchase (paid to the operator).
 * Both go through the same engine — authorizations, submitted transactions, x402, settlement and the
 * claim of a transfer — and differ only in their state machine and in what they announce: an invoice's
 * attempts reach the change feed and webhooks, a purchase's reach nobody but the purchase itself.
 */
export interface OrderRef {
  readonly kind: OrderKind;
  readonly id: string;
}

export const invoiceOrder = (id: string): OrderRef => ({ kind: 'invoice', id });
export const purchaseOrder = (id: string): OrderRef => ({ kind: 'credit_purchase', id });

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

/** The payment steps the engine reports to an order's state machine. */
export type PaymentStep =
  | { readonly type: 'begin_payment'; readonly startedAt: Date }
  | { readonly type: 'payment_failed' }
  | { readonly type: 'payment_succeeded'; readonly network: string };

/**
 * A payment step taken (with the invoice's label as the step left it, for an invoice) or refused by the
 * order's state machine: the code names why (or `noop`).
 */
export type StepResult =
  { readonly ok: true; readonly label?: InvoiceLabel } | { readonly ok: false; readonly code: string };

/** Another payment of the order already holds it `processing`. */
export function heldByAnother(result: StepResult): boolean {
  return !result.ok && (result.code === 'invoice_processing' || result.code === 'purchase_processing');
}

/**
 * What the engine asks of one kind of order. The module that owns the order's table implements it with
 * its own repository and state machine (invoices: invoice.payable.ts, credit purchases:
 * purchase.payable.ts) and src/main hands it to the engine, which never reads or writes those tables.
 * `State` is whatever decides whether an order can take a payment now: the engine keeps copies of it for
 * the 402 path (src/modules/x402/order-state-cache.ts) and never looks inside.
 */
export interface OrderBook<State = unknown> {
  /** The order as it is (any status), or undefined when the workspace has no such order. */
  find(db: Executor, workspaceId: WorkspaceId, id: string): Promise<PayableOrder | undefined>;
  /** What decides whether the order can take a payment; its changes are announced on ORDER_CHANGES_CHANNEL. */
  read(workspaceId: WorkspaceId, id: string): Promise<State>;
  /** The order of `state`, if it can take a new payment at `now`; otherwise throws the AppError that says why. */
  judge(state: State, now: Date): PayableOrder;
  /** Locks the order's row for the engine's transaction (the payments of one order are ordered by it); false: none. */
  lock(trx: Executor, workspaceId: WorkspaceId, id: string): Promise<boolean>;
  /**
   * Locks the rows of these orders in one statement, in id order, and keeps each in `into` (under the
   * order's kind) for `apply`, which takes it instead of locking and reading it again. Optional: a kind
   * that rarely comes in groups locks its row in `apply`.
   */
  lockAll?(trx: Executor, workspaceId: WorkspaceId, ids: readonly string[], into: LockedRows): Promise<void>;
  /**
   * Applies a payment step to the order inside the engine's transaction, persisting it (with whatever the
   * order records beside it) when its state machine allows; answers the verdict, undefined when there is
   * no such order. Its feed events and credit movements join `writes`, which the engine writes last.
   */
  apply(
    trx: Executor,
    workspaceId: WorkspaceId,
    id: string,
    step: PaymentStep,
    at: Date,
    writes: WorkspaceWrites,
    locked?: LockedRows,
  ): Promise<StepResult | undefined>;
  /**
   * The payment that paid the order was reverted by a reorganisation of the chain: inside the engine's
   * transaction, the order takes no longer being paid (payable again, or expired past its deadline).
   */
  revertPayment(trx: Executor, workspaceId: WorkspaceId, id: string, at: Date, writes: WorkspaceWrites): Promise<void>;
}

/** How an invoice is named where its payments are shown: payment intents, receipts, events. */
export interface InvoiceLabel {
  /** `INV-000042`. */
  readonly number: string;
  readonly externalId: string | null;
  readonly description: string | null;
  /** Set once the invoice is paid. */
  readonly paidAt: Date | null;
  readonly paid: boolean;
}

/** Invoices are also shown beside their payments, to the merchant: the engine reads their label. */
export interface InvoiceBook<State = unknown> extends OrderBook<State> {
  label(db: Executor, workspaceId: WorkspaceId, id: string): Promise<InvoiceLabel | undefined>;
}

/** One book per kind of order, as src/main wires them. */
export interface OrderBooks {
  readonly invoice: InvoiceBook;
  readonly credit_purchase: OrderBook;
}
