import type { IncomingHttpHeaders } from 'node:http';
import {
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
  type WebhookVerificationReason,
} from '@invoice-service/client';

export type { WebhookEvent };

/** docs/spec/merchant-api-core-v1.1.0.md, "Receiver verification steps" 2: for example five minutes. */
export const DEFAULT_SKEW_SECONDS = 300;

export type EventCheck =
  { ok: true; event: WebhookEvent } | { ok: false; status: 400 | 401; reason: WebhookVerificationReason };

/**
 * Steps 2–4 with the client package's verifyWebhook: the timestamp within `skewSeconds` of `nowMs`, a
 * `v1=` signature of "<timestamp>.<raw body>" with the secret (its literal text, `whsec_` included;
 * around a rotation, the new and the old one), then an event envelope whose id is the X-Payment-Event-ID
 * header. Never throws on malformed input.
 */
export function checkEvent(
  secret: string | readonly string[],
  rawBody: Uint8Array,
  headers: IncomingHttpHeaders,
  nowMs: number,
  skewSeconds = DEFAULT_SKEW_SECONDS,
): EventCheck {
  try {
    return { ok: true, event: verifyWebhook(rawBody, headers, secret, { toleranceSeconds: skewSeconds, now: nowMs }) };
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    // Signed by the service but not an event we can read: 400. Not shown to come from the service: 401.
    const malformed = error.reason === 'malformed_event' || error.reason === 'event_id_mismatch';
    return { ok: false, status: malformed ? 400 : 401, reason: error.reason };
  }
}

/** The payment intent id a `payment_intent.succeeded` event names; the only field of `data` we use. */
export function paymentIntentIdOf(event: WebhookEvent): string | undefined {
  if (!isRecord(event.data) || !isRecord(event.data.paymentIntent)) return undefined;
  const id = event.data.paymentIntent.id;
  return typeof id === 'string' && id.length > 0 ? id : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
