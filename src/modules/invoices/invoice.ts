import type { Branded, WorkspaceId } from '../../shared/ids.js';
import { randomToken } from '../../shared/ids.js';
import { EXPIRES_IN_CREDITS, type ExpiresIn } from '../invoice-input/index.js';

export {
  DEFAULT_EXPIRES_IN,
  EXPIRES_IN_CREDITS,
  EXPIRES_IN_VALUES,
  EXTERNAL_ID_MAX_BYTES,
  isExpiresIn,
  utf8Bytes,
  type ExpiresIn,
} from '../invoice-input/index.js';

export type InvoiceId = Branded<string, 'InvoiceId'>;

export const INVOICE_STATUSES = ['open', 'processing', 'paid', 'expired', 'cancelled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

export interface Invoice {
  readonly workspaceId: WorkspaceId;
  readonly id: InvoiceId;
  readonly number: bigint;
  readonly status: InvoiceStatus;
  readonly amount: bigint;
  readonly currency: 'USDC';
  readonly network: string | null;
  readonly expiresIn: ExpiresIn;
  readonly expiresAt: Date;
  readonly linkVersion: number;
  readonly externalId: string | null;
  readonly description: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly payTo: string;
  readonly feeReserved: bigint;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly paidAt: Date | null;
  readonly expiredAt: Date | null;
  readonly cancelledAt: Date | null;
  /** The automation and occurrence that created it; null for any other invoice. */
  readonly automation: InvoiceAutomation | null;
}

export interface InvoiceAutomation {
  readonly id: string;
  readonly occurrence: number;
}

/** What creating an invoice is asked for; the database decides the rest (its number and receiving wallet). */
export interface InvoiceDraft {
  readonly id: InvoiceId;
  readonly amount: bigint;
  readonly network: string | null;
  readonly expiresIn: ExpiresIn;
  readonly now: Date;
  readonly externalId: string | null;
  readonly description: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  /** The success fee reserved for it. */
  readonly fee: bigint;
}

/** The invoice a draft becomes, as it reads the moment it is created. */
export function openedInvoice(
  workspaceId: WorkspaceId,
  draft: InvoiceDraft,
  decided: { readonly number: bigint; readonly payTo: string },
  automation: InvoiceAutomation | null = null,
): Invoice {
  return {
    workspaceId,
    id: draft.id,
    number: decided.number,
    status: 'open',
    amount: draft.amount,
    currency: 'USDC',
    network: draft.network,
    expiresIn: draft.expiresIn,
    expiresAt: new Date(draft.now.getTime() + draft.expiresIn * 1000),
    linkVersion: 1,
    externalId: draft.externalId,
    description: draft.description,
    successUrl: draft.successUrl,
    cancelUrl: draft.cancelUrl,
    payTo: decided.payTo,
    feeReserved: draft.fee,
    createdAt: draft.now,
    updatedAt: draft.now,
    paidAt: null,
    expiredAt: null,
    cancelledAt: null,
    automation,
  };
}

export function newInvoiceId(): InvoiceId {
  return `inv_${randomToken()}` as InvoiceId;
}

/** Whether an order id is an invoice's (credit purchases are orders too, and share their notifications). */
export const isInvoiceId = (id: string): id is InvoiceId => id.startsWith('inv_');

/** `INV-000001`; past 999999 the number simply grows (`INV-1000000`). */
export function formatInvoiceNumber(number: bigint): string {
  return `INV-${number.toString().padStart(6, '0')}`;
}

/** What a reader sees: an open invoice past its deadline is expired, even before the job records it. */
export function effectiveStatus(invoice: Pick<Invoice, 'status' | 'expiresAt'>, now: Date): InvoiceStatus {
  return invoice.status === 'open' && invoice.expiresAt.getTime() <= now.getTime() ? 'expired' : invoice.status;
}

/** Older than INVOICE_RETENTION_DAYS from its creation: kept for good, but its lifecycle records are gone. */
export function isArchived(invoice: Pick<Invoice, 'createdAt'>, at: Date, retentionDays: number): boolean {
  return invoice.createdAt.getTime() < at.getTime() - retentionDays * 86_400_000;
}

/** The invoice as readers see it: one open past its deadline reads as expired at its deadline. */
export function invoiceAsRead(invoice: Invoice, now: Date): Invoice {
  const status = effectiveStatus(invoice, now);
  return status === invoice.status ? invoice : { ...invoice, status, expiredAt: invoice.expiresAt };
}

export type InvoiceEventType =
  | 'invoice.expired'
  | 'invoice.cancelled'
  | 'invoice.renewed'
  | 'invoice.processing'
  | 'invoice.paid'
  | 'invoice.reopened';

/** The fields a transition may change; `network` names the paying one once paid. */
type Changeable = 'status' | 'expiresIn' | 'expiresAt' | 'linkVersion' | 'feeReserved' | 'expiredAt';
export type InvoiceChanges = Partial<Pick<Invoice, Changeable | 'cancelledAt' | 'paidAt' | 'network'>>;

/** The outcome of a command on an invoice: the fields that change, the credits that move, the event. */
export type Transition =
  | {
      readonly ok: true;
      readonly changes: InvoiceChanges;
      /** Credits taken from the balance (renewal) — never negative. */
      readonly charge: bigint;
      /** Change of the success-fee reserve: negative releases it, positive reserves it. */
      readonly reserveChange: bigint;
      readonly event: InvoiceEventType;
    }
  | {
      readonly ok: false;
      readonly code:
        | 'invoice_already_paid'
        | 'invoice_cancelled'
        | 'invoice_processing'
        | 'invoice_expired'
        | 'invoice_recipient_changed'
        | 'noop';
    };

export type InvoiceCommand =
  | { readonly type: 'expire' }
  | { readonly type: 'cancel' }
  /** `wallet`: the workspace's receiving address now; the renewed link must pay it. */
  | { readonly type: 'renew'; readonly expiresIn: ExpiresIn; readonly successFee: bigint; readonly wallet: string }
  /**
   * A payment starts being verified or settled. `startedAt` is when the buyer's payment began (an
   * authorization accepted, a transfer submitted or mined, whichever came first): an invoice past its
   * deadline still takes a payment that began before it.
   */
  | { readonly type: 'begin_payment'; readonly startedAt: Date }
  /** The attempt failed: open again, or expired when the deadline passed meanwhile. */
  | { readonly type: 'payment_failed' }
  /**
   * The attempt succeeded (possibly after the deadline, if submitted before it): paid, fee captured, and
   * the invoice names the network that paid it (the buyer's choice when it was created without one).
   */
  | { readonly type: 'payment_succeeded'; readonly network: string }
  /** The paying transaction left the chain before it was final: open again, or expired past the deadline. */
  | { readonly type: 'payment_reverted' };

/**
 * The invoice state machine, pure: open → expired at the deadline; open/expired →
 * cancelled; open/expired → open again by renewal with a new deadline and link version. A paid or
 * processing invoice refuses cancel and renew, a cancelled one refuses renewal, and so does one issued
 * for a receiving address the workspace no longer uses (its link pays that address, which no payment
 * may: docs/spec/merchant-api-core-v1.1.0.md, What the service does 5); cancelling a cancelled invoice
 * and expiring anything but a due open invoice are no-ops.
 */
export function transition(invoice: Invoice, command: InvoiceCommand, now: Date): Transition {
  const status = effectiveStatus(invoice, now);
  const release = -invoice.feeReserved;
  if (command.type === 'payment_reverted') return revertedPayment(invoice, now);
  if (command.type === 'begin_payment' || command.type === 'payment_failed' || command.type === 'payment_succeeded') {
    return paymentTransition(invoice, command, status, now);
  }
  if (command.type === 'expire') {
    if (invoice.status !== 'open' || status !== 'expired') return { ok: false, code: 'noop' };
    // The invoice expired at its deadline, whenever the job gets to record it.
    return {
      ok: true,
      changes: { status: 'expired', expiredAt: invoice.expiresAt, feeReserved: 0n },
      charge: 0n,
      reserveChange: release,
      event: 'invoice.expired',
    };
  }
  if (status === 'paid') return { ok: false, code: 'invoice_already_paid' };
  if (status === 'processing') return { ok: false, code: 'invoice_processing' };
  if (status === 'cancelled') return { ok: false, code: command.type === 'cancel' ? 'noop' : 'invoice_cancelled' };
  if (command.type === 'cancel') {
    return {
      ok: true,
      changes: { status: 'cancelled', cancelledAt: now, feeReserved: 0n },
      charge: 0n,
      reserveChange: release,
      event: 'invoice.cancelled',
    };
  }
  if (invoice.payTo.toLowerCase() !== command.wallet.toLowerCase())
    return { ok: false, code: 'invoice_recipient_changed' };
  // Renewal: the window costs its creation credits again; the success fee stays reserved once.
  return {
    ok: true,
    changes: {
      status: 'open',
      expiresIn: command.expiresIn,
      expiresAt: new Date(now.getTime() + command.expiresIn * 1000),
      linkVersion: invoice.linkVersion + 1,
      feeReserved: command.successFee,
    },
    charge: BigInt(EXPIRES_IN_CREDITS[command.expiresIn]),
    reserveChange: command.successFee - invoice.feeReserved,
    event: 'invoice.renewed',
  };
}

/**
 * Payment steps. A payment that began before the deadline may finish after it (the buyer must not pay twice),
 * which is why `processing` is never expired by the clock.
 */
function paymentTransition(invoice: Invoice, command: InvoiceCommand, status: InvoiceStatus, now: Date): Transition {
  if (command.type === 'begin_payment') {
    const inTime = command.startedAt.getTime() < invoice.expiresAt.getTime();
    if (status === 'expired' && inTime) {
      // Late verification: the invoice expired while the payment was on its way; it completes anyway.
      return {
        ok: true,
        changes: { status: 'processing', expiredAt: null },
        charge: 0n,
        reserveChange: 0n,
        event: 'invoice.processing',
      };
    }
    if (status !== 'open') return { ok: false, code: REFUSE_PAYMENT[status] };
    return { ok: true, changes: { status: 'processing' }, charge: 0n, reserveChange: 0n, event: 'invoice.processing' };
  }
  if (invoice.status !== 'processing') return { ok: false, code: 'noop' };
  if (command.type === 'payment_succeeded') {
    // The reserved success fee is captured: it leaves the balance and the reserve together.
    return {
      ok: true,
      changes: { status: 'paid', paidAt: now, feeReserved: 0n, network: command.network },
      charge: invoice.feeReserved,
      reserveChange: -invoice.feeReserved,
      event: 'invoice.paid',
    };
  }
  if (invoice.expiresAt.getTime() <= now.getTime()) {
    return {
      ok: true,
      changes: { status: 'expired', expiredAt: invoice.expiresAt, feeReserved: 0n },
      charge: 0n,
      reserveChange: -invoice.feeReserved,
      event: 'invoice.expired',
    };
  }
  return { ok: true, changes: { status: 'open' }, charge: 0n, reserveChange: 0n, event: 'invoice.reopened' };
}

/** The success fee captured with the reverted payment stays captured: paid again, the invoice costs none. */
function revertedPayment(invoice: Invoice, now: Date): Transition {
  if (invoice.status !== 'paid') return { ok: false, code: 'noop' };
  const expired = invoice.expiresAt.getTime() <= now.getTime();
  const changes = expired ? { status: 'expired' as const, expiredAt: invoice.expiresAt } : { status: 'open' as const };
  const event = expired ? 'invoice.expired' : 'invoice.reopened';
  return { ok: true, changes: { ...changes, paidAt: null }, charge: 0n, reserveChange: 0n, event };
}

const REFUSE_PAYMENT = {
  paid: 'invoice_already_paid',
  processing: 'invoice_processing',
  cancelled: 'invoice_cancelled',
  expired: 'invoice_expired',
  open: 'noop',
} as const satisfies Record<InvoiceStatus, Exclude<Transition, { ok: true }>['code']>;
