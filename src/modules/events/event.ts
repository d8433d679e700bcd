import type { WorkspaceId } from '../../shared/ids.js';

/**
 * The event catalogue: every kind of change-feed event, the type of its `data`, and whether it is also
 * sent to the workspace's webhook endpoint. The feed's kind lists, the webhook kinds and the timeline's
 * kinds derive from it; the kind table of docs/change-feed.md is kept equal to it by a test.
 *
 * `data` is stored exactly as the feed serves it and as a webhook body carries it: the API's shape
 * (camelCase, amounts as decimal strings, absolute links), fixed when the event commits.
 *
 * `webhook.test` is not an event: POST /webhook/test sends it straight to the receiver, it never
 * enters the feed, and it is defined by the webhooks module (TEST_EVENT_TYPE).
 */

/** The invoice as GET /invoices/{id} showed it right after the change (built by the invoices module). */
export interface InvoiceSnapshot {
  readonly id: string;
  readonly number: string;
  readonly status: string;
  readonly amount: string;
  readonly currency: string;
  readonly network: string | null;
  readonly expiresIn: number;
  readonly expiresAt: string;
  readonly linkVersion: number;
  readonly externalId: string | null;
  /** Absent from events written before invoices had a description. */
  readonly description?: string | null;
  readonly successUrl: string | null;
  readonly cancelUrl: string | null;
  readonly payTo: string;
  readonly url: string;
  readonly checkoutUrl: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly paidAt: string | null;
  readonly expiredAt: string | null;
  readonly cancelledAt: string | null;
  /** Whether the invoice was archived at the time of the event; absent from events written before invoices were archived. */
  readonly archived?: boolean;
}

/** The payment intent as GET /payment-intents/{id} showed it; the fields named here are the ones readers rely on. */
export interface PaymentIntentSnapshot {
  readonly id: string;
  readonly status: string;
  readonly failureReason?: string | null;
  readonly [field: string]: unknown;
}

export interface InvoiceEventData {
  readonly invoice: InvoiceSnapshot;
}

export interface ScheduledEventData extends InvoiceEventData {
  /** The automation (`aut_…`) and which of its occurrences created the invoice. */
  readonly automationId: string;
  readonly occurrence: number;
}

/** The received transfer as GET /received-transfers/{id} showed it (built by the received-transfers module). */
export interface ReceivedTransferSnapshot {
  readonly id: string;
  readonly status: string;
  readonly reason: string;
  readonly [field: string]: unknown;
}

export interface ReceivedTransferEventData {
  readonly receivedTransfer: ReceivedTransferSnapshot;
}

export interface PaymentIntentEventData {
  readonly paymentIntent: PaymentIntentSnapshot;
  /** Absent only if the invoice could not be read (it always exists while its payment does). */
  readonly invoice?: { readonly id: string; readonly number: string; readonly externalId: string | null };
}

/** The rules of a kind. */
export interface KindSpec {
  /**
   * What the event is about: `invoiceId` is set for invoices and payment intents, `paymentIntentId` for
   * payment intents; a received transfer's event carries the invoice it is about when there is one.
   */
  readonly subject: 'invoice' | 'payment_intent' | 'received_transfer';
  /** Also sent to the workspace's webhook endpoint (the delivery is queued in the event's transaction). */
  readonly webhook: boolean;
  /** The record GET /invoices/{id}/timeline shows for it, or null for none. */
  readonly timeline: string | null;
  /** When it happens, for the docs. */
  readonly when: string;
  /** Part of the contract, but written by nothing in this version. */
  readonly reserved?: true;
}

declare const DATA: unique symbol;
/** A kind's rules, carrying the type of its `data` (type-level only). */
function kind<Data>() {
  return <const Spec extends KindSpec>(spec: Spec): Spec & { readonly [DATA]?: Data } => spec;
}

/** The built-in kinds, in the order the docs and the timeline list them. */
const BUILT_IN = {
  'invoice.created': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'created',
    when: 'an invoice is created (API, portal or batch)',
  }),
  'payment_intent.processing': kind<PaymentIntentEventData>()({
    subject: 'payment_intent',
    webhook: false,
    timeline: 'payment_submitted',
    when: 'a payment is being verified: an authorization was accepted, or a submitted transfer that pays the invoice was found in a block',
  }),
  'invoice.processing': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'verification_pending',
    when: 'a payment for the invoice is being verified or settled',
  }),
  'payment_intent.succeeded': kind<PaymentIntentEventData>()({
    subject: 'payment_intent',
    webhook: true,
    timeline: 'payment_confirmed',
    when: 'the payment attempt is confirmed',
  }),
  'invoice.paid': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'paid',
    when: 'the payment is confirmed',
  }),
  'payment_intent.failed': kind<PaymentIntentEventData>()({
    subject: 'payment_intent',
    webhook: false,
    timeline: 'payment_failed',
    when: 'the attempt failed (`paymentIntent.failureReason` names why)',
  }),
  'payment_intent.overpaid': kind<PaymentIntentEventData>()({
    subject: 'payment_intent',
    webhook: false,
    timeline: 'overpayment_received',
    when: 'a second payment landed for an invoice already paid (or cancelled): recorded, listed in GET /issues; settle it with the buyer',
  }),
  'payment_intent.reverted': kind<PaymentIntentEventData>()({
    subject: 'payment_intent',
    webhook: true,
    timeline: 'payment_reverted',
    when: 'a reorganisation of the chain took a confirmed payment out before it was final: the invoice is payable again (or expired); listed in GET /issues. Beyond the three webhook kinds of the specification: a receiver that follows it ignores this kind, one that fulfilled the order must hold or undo it',
  }),
  'invoice.expired': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'expired',
    when: 'the deadline passed without a payment',
  }),
  'invoice.cancelled': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'cancelled',
    when: 'the invoice was cancelled',
  }),
  'invoice.renewed': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'renewed',
    when: 'a new deadline and link version',
  }),
  'invoice.reopened': kind<InvoiceEventData>()({
    subject: 'invoice',
    webhook: false,
    timeline: 'reopened',
    when: 'verification failed before the deadline; payable again',
  }),
  'invoice.scheduled': kind<ScheduledEventData>()({
    subject: 'invoice',
    webhook: true,
    timeline: 'scheduled',
    when: 'an automation created the invoice for one of its occurrences (`automationId`, `occurrence`); not proof of payment',
  }),
  'transfer.unmatched': kind<ReceivedTransferEventData>()({
    subject: 'received_transfer',
    webhook: false,
    timeline: null,
    when: 'a transfer reached the wallet and paid no invoice by itself (`receivedTransfer.reason` says why); listed in GET /issues until applied or dismissed',
  }),
  'transfer.applied': kind<ReceivedTransferEventData>()({
    subject: 'received_transfer',
    webhook: false,
    timeline: null,
    when: 'a received transfer was applied to an invoice, which its payment events follow',
  }),
  'transfer.dismissed': kind<ReceivedTransferEventData>()({
    subject: 'received_transfer',
    webhook: false,
    timeline: null,
    when: 'a received transfer was dismissed',
  }),
} as const;

// create_invoice_group appends `invoice.created` (append_event) in the database, in its one round trip,
// where no webhook delivery can be queued: the compiler keeps it a feed-only kind.
const CREATED_IS_FEED_ONLY: false = BUILT_IN['invoice.created'].webhook;
void CREATED_IS_FEED_ONLY;

type BuiltInKind = keyof typeof BUILT_IN;
type BuiltInData = { [K in BuiltInKind]: NonNullable<(typeof BUILT_IN)[K][typeof DATA]> };

/**
 * The type of `data` of every kind. A kind defined outside this file (a test's) adds its data type by
 * declaration merging and its rules with `defineEventKind`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface EventDataByKind extends BuiltInData {}
export type EventKind = keyof EventDataByKind & string;
export type EventData<K extends EventKind> = EventDataByKind[K];

/** An event to append: its kind, its data as the API shows it, the objects it is about, when it happened. */
export type NewEvent = {
  [K in EventKind]: {
    readonly type: K;
    readonly data: EventData<K>;
    /** Always set for invoice and payment intent kinds; for a received transfer, the invoice it names, if any. */
    readonly invoiceId: string | null;
    readonly paymentIntentId?: string;
    readonly at: Date;
  };
}[EventKind];

/** An event to append to a workspace's feed (many at once, possibly of several workspaces). */
export type WorkspaceEvent = NewEvent & { readonly workspaceId: WorkspaceId };

const KINDS = new Map<string, KindSpec>(Object.entries(BUILT_IN));

/** The rules of a kind; throws for a kind nobody defined, so that an event of it is never written. */
export function kindSpec(type: string): KindSpec {
  const spec = KINDS.get(type);
  if (!spec) throw new Error(`event kind ${type} is not in the event catalogue`);
  return spec;
}

export function isWebhookKind(type: string): boolean {
  return KINDS.get(type)?.webhook === true;
}

/** Adds a kind to the catalogue at run time (a test's kind); a kind can be defined once. */
export function defineEventKind(type: EventKind, spec: KindSpec): void {
  if (KINDS.has(type) || type.startsWith('webhook.')) throw new Error(`event kind ${type} is already defined`);
  KINDS.set(type, spec);
}

const builtIn = Object.entries(BUILT_IN) as [BuiltInKind, KindSpec][];
const listed = (subject: KindSpec['subject']) =>
  builtIn.filter(([, spec]) => spec.subject === subject && !spec.reserved).map(([type]) => type);

/** The kinds the feed carries in this version, by subject. */
export const INVOICE_EVENT_TYPES: readonly BuiltInKind[] = listed('invoice');
export const PAYMENT_INTENT_EVENT_TYPES: readonly BuiltInKind[] = listed('payment_intent');
export const TRANSFER_EVENT_TYPES: readonly BuiltInKind[] = listed('received_transfer');

/** The kinds sent to webhook endpoints (the feed carries all kinds). */
export const WEBHOOK_EVENT_TYPES: readonly BuiltInKind[] = builtIn
  .filter(([, spec]) => spec.webhook)
  .map(([type]) => type);

/** The timeline record of each kind that has one. */
export type TimelineEventKind = NonNullable<(typeof BUILT_IN)[BuiltInKind]['timeline']>;
export const TIMELINE_RECORD_OF = Object.fromEntries(
  builtIn.flatMap(([type, spec]) => (spec.timeline === null ? [] : [[type, spec.timeline]])),
) as Readonly<Partial<Record<BuiltInKind, TimelineEventKind>>>;
