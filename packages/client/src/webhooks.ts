import { createHmac, timingSafeEqual } from 'node:crypto';

/** The body of every webhook. `data` depends on `type` (see the service's docs/webhooks.md). */
export interface WebhookEvent {
  /** The change-feed event id (decimal), or `test_…` for a test; dedupe on (workspaceId, id). */
  readonly id: string;
  readonly type: string;
  readonly workspaceId: string;
  readonly createdAt: string;
  readonly test: boolean;
  readonly data: unknown;
}

export type WebhookVerificationReason =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch'
  | 'malformed_event'
  | 'event_id_mismatch';

/** The request is not a webhook of the service signed with the secret: answer it with a non-2xx. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';

  constructor(
    readonly reason: WebhookVerificationReason,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as fetch (`Headers`), node:http (`request.headers`) or a plain object carry them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** How far the signed timestamp may be from `now`, either way. Default 300 (the spec's five minutes). */
  readonly toleranceSeconds?: number;
  /** The receiver's clock; default the current time. */
  readonly now?: Date | number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/**
 * The spec's receiver steps 2–4: the `X-Payment-Timestamp` is within the tolerance, one of the `v1=`
 * values of `X-Payment-Signature` is HMAC-SHA256(secret, "<timestamp>.<raw body>") compared in constant
 * time, and the body is an event whose `id` is `X-Payment-Event-ID`. Returns the parsed event; throws
 * WebhookVerificationError otherwise. Then check `workspaceId` and `type` and re-read what the event names.
 *
 * `rawBody` is the bytes as received, before any JSON parsing. `secret` is the signing secret as its
 * literal text (`whsec_…`); around a rotation pass both, the new one first. Several `v1=` values
 * (separated by commas or spaces) are accepted too, so a sender may sign with two secrets.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  // Configuration mistakes are the caller's, and must not pass as a weaker check: an empty secret is a
  // key anyone can sign with, and a tolerance that is not a number would compare false.
  const secrets = ([] as string[]).concat(secret);
  if (secrets.length === 0 || secrets.some((key) => typeof key !== 'string' || key === ''))
    throw new TypeError('verifyWebhook needs the endpoint signing secret (a non-empty string, or several).');
  const tolerance = options.toleranceSeconds ?? 300;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new TypeError('verifyWebhook: toleranceSeconds must be a finite number of seconds, 0 or more.');
  const timestamp = header(headers, 'x-payment-timestamp');
  const signature = header(headers, 'x-payment-signature');
  const eventId = header(headers, 'x-payment-event-id');
  const missing = [
    ['X-Payment-Timestamp', timestamp],
    ['X-Payment-Signature', signature],
    ['X-Payment-Event-ID', eventId],
  ].find(([, value]) => value === undefined || value === '');
  if (missing) throw new WebhookVerificationError('missing_header', `The ${missing[0]} header is missing.`);

  if (!/^\d{1,15}$/.test(timestamp!))
    throw new WebhookVerificationError('invalid_timestamp', 'X-Payment-Timestamp is not unix seconds.');
  const nowSeconds = Math.floor(Number(options.now ?? Date.now()) / 1000);
  // The timestamp is signed, so a request replayed as it was is refused here, not only by the dedupe.
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance)
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      'X-Payment-Timestamp is too far from this clock: an old request replayed, or a clock that is off.',
    );

  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const signed = secrets.map((key) => createHmac('sha256', key).update(`${timestamp}.`).update(body).digest());
  // Buffer.from(…, 'hex') drops bad digits silently: the shape is checked first, so lengths always match.
  const presented = signature!
    .split(/[\s,]+/)
    .filter((part) => /^v1=[0-9a-fA-F]{64}$/.test(part))
    .map((part) => Buffer.from(part.slice(3), 'hex'));
  // Every pair is compared, so the time taken does not say which one matched.
  const matches = presented.reduce(
    (found, value) => signed.reduce((any, expected) => timingSafeEqual(value, expected) || any, found),
    false,
  );
  if (!matches)
    throw new WebhookVerificationError('signature_mismatch', 'X-Payment-Signature does not match the body and secret.');

  const event = parseEvent(body);
  if (!event) throw new WebhookVerificationError('malformed_event', 'The body is not a webhook event.');
  if (event.id !== eventId)
    throw new WebhookVerificationError('event_id_mismatch', 'X-Payment-Event-ID differs from the body id.');
  return event;
}

/** One header's value; repeated headers are joined with commas, as HTTP does. */
function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return value === undefined ? undefined : ([] as string[]).concat(value).join(',');
}

function parseEvent(body: Uint8Array): WebhookEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(body));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { id, type, workspaceId, createdAt, test, data } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof workspaceId !== 'string') return undefined;
  if (typeof createdAt !== 'string' || typeof test !== 'boolean') return undefined;
  return { id, type, workspaceId, createdAt, test, data };
}
