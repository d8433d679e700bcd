import { createHmac } from 'node:crypto';

/** The job kind of a delivery; its unique key is `<workspace id>/<event id>`. */
export const DELIVER_WEBHOOK_JOB = 'webhooks.deliver';

/**
 * The kind of a test send: never an event, never in the feed. Which feed events are sent is the event
 * catalogue's business (src/modules/events/event.ts); the outbox sends what it is given.
 */
export const TEST_EVENT_TYPE = 'webhook.test';

/**
 * Why an attempt failed, in words safe to show the merchant: never a response body, a header or an
 * internal message. `http_status` means the receiver answered with a non-2xx, non-3xx status.
 */
export const DELIVERY_ERRORS = [
  'http_status',
  'redirect',
  'timeout',
  'connection_refused',
  'connection_reset',
  'dns_failure',
  'blocked_destination',
  'tls_error',
  'network_error',
] as const;
export type DeliveryError = (typeof DELIVERY_ERRORS)[number];

/** The result of one POST to a receiver. Only a 2xx acknowledges. */
export type AttemptOutcome =
  | { readonly ok: true; readonly status: number; readonly durationMs: number }
  | { readonly ok: false; readonly status?: number; readonly error: DeliveryError; readonly durationMs: number };

/** Feed event ids are PostgreSQL bigints: no event can have a greater id. */
const MAX_EVENT_ID = 2n ** 63n - 1n;

/**
 * A retry's event id in the form deliveries store it (decimal, no leading zeros), or undefined when no
 * event can have it: not a decimal number, or beyond the bigint range (so it never reaches a query).
 */
export function storedEventId(raw: string): string | undefined {
  if (!/^[0-9]{1,19}$/.test(raw)) return undefined;
  const id = BigInt(raw);
  return id >= 1n && id <= MAX_EVENT_ID ? id.toString() : undefined;
}

/** Attempts and finished deliveries are kept this long: 30 days of history. */
export const DELIVERY_HISTORY_DAYS = 30;

/** 8 s per request, name resolution included. */
export const DELIVERY_TIMEOUT_MS = 8000;

/** The body every receiver gets (docs/webhooks.md): the tenant is `workspaceId`. */
export interface WebhookBody {
  readonly id: string;
  readonly type: string;
  readonly workspaceId: string;
  readonly createdAt: string;
  readonly test: boolean;
  readonly data: unknown;
}

/** The body of a delivery, the one place its shape is decided; `test` only for POST /webhook/test. */
export function webhookBody(
  workspaceId: string,
  event: {
    readonly id: string;
    readonly type: string;
    readonly at: Date;
    readonly data: unknown;
    readonly test?: boolean;
  },
): WebhookBody {
  return {
    id: event.id,
    type: event.type,
    workspaceId,
    createdAt: event.at.toISOString(),
    test: event.test ?? false,
    data: event.data,
  };
}

/** The headers of one attempt: a fresh timestamp and its signature over `<timestamp>.<raw body>`. */
export function signedHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000).toString();
  const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return {
    'content-type': 'application/json',
    'user-agent': 'invoice-service-webhooks/1',
    'x-payment-event-id': eventId,
    'x-payment-timestamp': timestamp,
    'x-payment-signature': `v1=${signature}`,
  };
}

/**
 * Seconds until the next attempt after `attempts` failed ones: the schedule's entry, its last entry
 * repeating, minus up to 10 % jitter so that a receiver coming back is not hit by every retry at once.
 */
export function retryDelaySeconds(
  schedule: readonly number[],
  attempts: number,
  random: () => number = Math.random,
): number {
  const base = schedule[Math.min(attempts, schedule.length) - 1] ?? schedule[0] ?? 5;
  return base * (1 - 0.1 * random());
}
