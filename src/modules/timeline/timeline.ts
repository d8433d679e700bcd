import type { INVOICE_EVENT_TYPES, PAYMENT_INTENT_EVENT_TYPES } from '../events/change-feed.js';

/** Records GET /invoices/{id}/timeline returns at most (spec: Limits, "up to 100 recent records"). */
export const TIMELINE_LIMIT = 100;

type FeedEventType = (typeof INVOICE_EVENT_TYPES)[number] | (typeof PAYMENT_INTENT_EVENT_TYPES)[number];

/**
 * The timeline kind of every change-feed event that belongs to an invoice. `satisfies` over the feed's
 * own list makes a new feed kind a compile error here until someone decides how the timeline shows it.
 */
export const EVENT_KINDS = {
  'invoice.created': 'created',
  'payment_intent.processing': 'payment_submitted',
  'invoice.processing': 'verification_pending',
  'payment_intent.succeeded': 'payment_confirmed',
  'invoice.paid': 'paid',
  'payment_intent.failed': 'payment_failed',
  'invoice.expired': 'expired',
  'invoice.cancelled': 'cancelled',
  'invoice.renewed': 'renewed',
  'invoice.reopened': 'reopened',
} as const satisfies Record<FeedEventType, string>;

export const TIMELINE_EVENT_TYPES = Object.keys(EVENT_KINDS) as FeedEventType[];

export const TIMELINE_KINDS = [...Object.values(EVENT_KINDS), 'webhook_attempt'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One record as the API shows it. Optional fields appear only on the kinds they describe. */
export interface TimelineRecord {
  readonly at: string;
  readonly kind: TimelineKind;
  /** The feed event (decimal id) the record comes from, or that a webhook attempt delivered. */
  readonly eventId?: string;
  readonly paymentIntentId?: string;
  readonly failureReason?: string;
  readonly linkVersion?: number;
  readonly expiresAt?: string;
  readonly attempt?: number;
  readonly statusCode?: number | null;
  readonly error?: string | null;
  readonly durationMs?: number;
}

export interface TimelineEvent {
  readonly id: bigint;
  readonly type: string;
  readonly paymentIntentId: string | null;
  readonly data: unknown;
  readonly createdAt: Date;
}

export interface TimelineAttempt {
  readonly eventId: string;
  readonly attempt: number;
  readonly startedAt: Date;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

/**
 * An invoice's feed event as a timeline record; undefined for kinds the timeline does not show. Only
 * named facts are copied out of `data` (it holds the whole invoice row), never the rest of it.
 */
export function eventRecord(event: TimelineEvent): TimelineRecord | undefined {
  const kind = (EVENT_KINDS as Record<string, TimelineKind | undefined>)[event.type];
  if (!kind) return undefined;
  const base = {
    at: event.createdAt.toISOString(),
    kind,
    eventId: event.id.toString(),
    ...(event.paymentIntentId !== null && { paymentIntentId: event.paymentIntentId }),
  };
  if (kind === 'payment_failed') {
    const reason = field(field(event.data, 'paymentIntent'), 'failureReason');
    return { ...base, ...(typeof reason === 'string' && { failureReason: reason }) };
  }
  if (kind === 'renewed') return { ...base, ...renewal(field(event.data, 'invoice')) };
  return base;
}

/** A delivery attempt as a timeline record: status, safe error category and duration, nothing the receiver sent. */
export function attemptRecord(attempt: TimelineAttempt): TimelineRecord {
  return {
    at: attempt.startedAt.toISOString(),
    kind: 'webhook_attempt',
    eventId: attempt.eventId,
    attempt: attempt.attempt,
    statusCode: attempt.statusCode,
    error: attempt.error,
    durationMs: attempt.durationMs,
  };
}

/**
 * The new link version and deadline of a renewal. Invoice events store the invoice row (snake_case,
 * `to_jsonb`); the camelCase names are read too so that a snapshot in the API's shape also works.
 */
function renewal(invoice: unknown): Pick<TimelineRecord, 'linkVersion' | 'expiresAt'> {
  const version = field(invoice, 'link_version') ?? field(invoice, 'linkVersion');
  const deadline = field(invoice, 'expires_at') ?? field(invoice, 'expiresAt');
  const expiresAt = typeof deadline === 'string' ? new Date(deadline) : undefined;
  return {
    ...(typeof version === 'number' && Number.isInteger(version) && { linkVersion: version }),
    ...(expiresAt && !Number.isNaN(expiresAt.getTime()) && { expiresAt: expiresAt.toISOString() }),
  };
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}
