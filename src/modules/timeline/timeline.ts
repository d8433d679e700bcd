import { TIMELINE_RECORD_OF, type TimelineEventKind } from '../events/index.js';

/** Records GET /invoices/{id}/timeline returns at most: the 100 most recent. */
export const TIMELINE_LIMIT = 100;

/** The feed event kinds the timeline shows: those the event catalogue gives a timeline record. */
export const TIMELINE_EVENT_TYPES = Object.keys(TIMELINE_RECORD_OF);

export const TIMELINE_KINDS = [
  ...(Object.values(TIMELINE_RECORD_OF) as TimelineEventKind[]),
  'webhook_attempt',
] as const;
export type TimelineKind = TimelineEventKind | 'webhook_attempt';

/** One record as the API shows it. Optional fields appear only on the kinds they describe. */
export interface TimelineRecord {
  readonly at: string;
  readonly kind: TimelineKind;
  /** The feed event (decimal id) the record comes from, or that a webhook attempt delivered. */
  readonly eventId?: string;
  readonly paymentIntentId?: string;
  readonly failureReason?: string;
  readonly network?: string;
  readonly transactionHash?: string;
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
 * named facts are copied out of `data` (it holds the whole invoice), never the rest of it. The invoice
 * history keeps only these facts of an event (HISTORY_FIELDS in event-retention.repo.ts): a new one read
 * here must be kept there too, or records read from the history lack it.
 */
export function eventRecord(event: TimelineEvent): TimelineRecord | undefined {
  const kind = (TIMELINE_RECORD_OF as Record<string, TimelineEventKind | undefined>)[event.type];
  if (!kind) return undefined;
  const base = {
    at: event.createdAt.toISOString(),
    kind,
    eventId: event.id.toString(),
    ...(event.paymentIntentId !== null && { paymentIntentId: event.paymentIntentId }),
  };
  if (kind === 'renewed') return { ...base, ...renewal(field(event.data, 'invoice')) };
  if (kind === 'paid') return { ...base, ...text('network', field(field(event.data, 'invoice'), 'network')) };
  const intent = field(event.data, 'paymentIntent');
  if (intent === undefined) return base;
  // A payment record names where it happened: the network, and the transaction once there is one.
  return {
    ...base,
    ...text('network', field(intent, 'network')),
    ...text('transactionHash', field(intent, 'transactionHash')),
    ...(kind === 'payment_failed' && text('failureReason', field(intent, 'failureReason'))),
  };
}

/** `{ [name]: value }` when value is a string, else nothing. */
function text<Name extends string>(name: Name, value: unknown): { [key in Name]?: string } {
  return typeof value === 'string' ? ({ [name]: value } as { [key in Name]: string }) : {};
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

/** The new link version and deadline of a renewal, from the invoice as the event stored it (the API's shape). */
function renewal(invoice: unknown): Pick<TimelineRecord, 'linkVersion' | 'expiresAt'> {
  const version = field(invoice, 'linkVersion');
  const deadline = field(invoice, 'expiresAt');
  const expiresAt = typeof deadline === 'string' ? new Date(deadline) : undefined;
  return {
    ...(typeof version === 'number' && Number.isInteger(version) && { linkVersion: version }),
    ...(expiresAt && !Number.isNaN(expiresAt.getTime()) && { expiresAt: expiresAt.toISOString() }),
  };
}

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}
