import { createdCursor } from '../../shared/created-cursor.js';
import { randomToken, type Branded, type WorkspaceId } from '../../shared/ids.js';

export type CreditPurchaseId = Branded<string, 'CreditPurchaseId'>;

export const PURCHASE_STATUSES = ['open', 'processing', 'paid', 'expired'] as const;
export type PurchaseStatus = (typeof PURCHASE_STATUSES)[number];

/** A purchase can be paid for an hour after it was made; then a new one is needed. */
export const PURCHASE_WINDOW_SECONDS = 3600;

/** Its single payment version: purchases are never renewed, so their authorization nonce never changes. */
export const PURCHASE_NONCE_VERSION = 1;

/**
 * An order for one credit package, paid to the operator wallet. Never an invoice: no number, no
 * change-feed event, no webhook. Its package's credits and price are copied in when it is made.
 */
export interface CreditPurchase {
  readonly workspaceId: WorkspaceId;
  readonly id: CreditPurchaseId;
  readonly packageId: string;
  readonly credits: number;
  /** USDC micro-units. */
  readonly price: bigint;
  readonly status: PurchaseStatus;
  /** The operator wallet when it was made, lowercase. */
  readonly payTo: string;
  /** The network it was paid on, once paid. */
  readonly network: string | null;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  readonly paidAt: Date | null;
  readonly source: 'api' | 'portal';
}

export function newCreditPurchaseId(): CreditPurchaseId {
  return `cp_${randomToken()}` as CreditPurchaseId;
}

/** What a reader sees: an open purchase past its deadline is expired; nothing else changes by the clock. */
export function effectiveStatus(purchase: Pick<CreditPurchase, 'status' | 'expiresAt'>, now: Date): PurchaseStatus {
  return purchase.status === 'open' && purchase.expiresAt.getTime() <= now.getTime() ? 'expired' : purchase.status;
}

/** The payment steps of a purchase, as the payment engine reports them. */
export type PurchaseCommand =
  /**
   * A payment attempt starts: an open purchase within its deadline, or — for a transfer sent before the
   * deadline and found in a block after it (`startedAt`, the earlier of submission and block time) — a
   * purchase that reads expired.
   */
  | { readonly type: 'begin_payment'; readonly startedAt: Date }
  /** The attempt failed: open again, or expired when the deadline passed meanwhile. */
  | { readonly type: 'payment_failed' }
  /** The attempt succeeded (possibly after the deadline, if submitted before it): paid, credits added. */
  | { readonly type: 'payment_succeeded'; readonly network: string }
  /** The paying transaction left the chain before it was final: open again (expired past the deadline), credits taken back. */
  | { readonly type: 'payment_reverted' };

export type PurchaseTransition =
  | {
      readonly ok: true;
      readonly changes: Partial<Pick<CreditPurchase, 'status' | 'network' | 'paidAt'>>;
      /** Credits to add to the workspace with this change: the package's once paid, minus them when reverted; else 0. */
      readonly credits: number;
    }
  | { readonly ok: false; readonly code: 'purchase_expired' | 'purchase_paid' | 'purchase_processing' | 'noop' };

/**
 * The purchase state machine, pure: open → processing → paid; processing → open when the attempt
 * fails before the deadline, expired after it; open → expired at the deadline (read as such, see
 * effectiveStatus). A payment that began before the deadline may finish after it, so `processing` is
 * never expired by the clock, and an expired purchase still takes a transfer sent in time. Credits are added exactly once: only the step into `paid` carries them.
 */
export function transition(purchase: CreditPurchase, command: PurchaseCommand, now: Date): PurchaseTransition {
  const status = effectiveStatus(purchase, now);
  if (command.type === 'payment_reverted') {
    if (purchase.status !== 'paid') return { ok: false, code: 'noop' };
    const reopened = purchase.expiresAt.getTime() <= now.getTime() ? 'expired' : 'open';
    return { ok: true, changes: { status: reopened, paidAt: null }, credits: -purchase.credits };
  }
  if (command.type === 'begin_payment') {
    const inTime = command.startedAt.getTime() < purchase.expiresAt.getTime();
    if (status === 'open' || (status === 'expired' && inTime))
      return { ok: true, changes: { status: 'processing' }, credits: 0 };
    return {
      ok: false,
      code: status === 'paid' ? 'purchase_paid' : status === 'processing' ? 'purchase_processing' : 'purchase_expired',
    };
  }
  if (purchase.status !== 'processing') return { ok: false, code: 'noop' };
  if (command.type === 'payment_succeeded') {
    return {
      ok: true,
      changes: { status: 'paid', paidAt: now, network: command.network },
      credits: purchase.credits,
    };
  }
  const failedTo = purchase.expiresAt.getTime() <= now.getTime() ? 'expired' : 'open';
  return { ok: true, changes: { status: failedTo }, credits: 0 };
}

/** Cursors of the purchase list (newest first): the last purchase's creation time and id. */
export const purchaseCursor = createdCursor<CreditPurchaseId>('cp');
