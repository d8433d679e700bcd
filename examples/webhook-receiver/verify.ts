import { createHmac, timingSafeEqual } from 'node:crypto';

/** Spec, "Receiver verification steps" 2: for example five minutes. */
export const DEFAULT_SKEW_SECONDS = 300;

export type SignatureCheck =
  { ok: true } | { ok: false; reason: 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature' };

/**
 * Steps 2 and 3: the attempt's timestamp is within `skewSeconds` of `nowSeconds`, and one of the `v1=`
 * values in the header is HMAC-SHA256(secret, "<timestamp>.<raw body>"). The secret is used as its
 * literal UTF-8 text, `whsec_` prefix included. Never throws on malformed input.
 */
export function verifySignature(
  secret: string,
  timestamp: string | undefined,
  rawBody: Uint8Array,
  header: string | undefined,
  nowSeconds: number,
  skewSeconds = DEFAULT_SKEW_SECONDS,
): SignatureCheck {
  if (!timestamp || !header) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,15}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  // The timestamp is signed, so an old request replayed as-is is refused here, not only by the dedupe.
  if (Math.abs(nowSeconds - Number(timestamp)) > skewSeconds) return { ok: false, reason: 'stale_timestamp' };
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  // Several values are allowed so that a sender may sign with two secrets around a rotation.
  const candidates = header.split(/[\s,]+/).filter((part) => part.startsWith('v1='));
  const matches = candidates.some((part) => {
    const hex = part.slice(3);
    // Buffer.from(…, 'hex') silently drops bad digits; check the shape so the length check means something.
    if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
    return timingSafeEqual(Buffer.from(hex, 'hex'), expected);
  });
  return matches ? { ok: true } : { ok: false, reason: 'bad_signature' };
}

/** The envelope of every webhook (DESIGN §8). `data` depends on `type`. */
export interface WebhookEvent {
  readonly id: string;
  readonly type: string;
  readonly workspaceId: string;
  readonly createdAt: string;
  readonly test: boolean;
  readonly data: unknown;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Step 4's parse: only after the signature holds. Returns undefined for anything that is not an envelope. */
export function parseEvent(rawBody: Uint8Array): WebhookEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(rawBody));
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { id, type, workspaceId, createdAt, test, data } = value;
  if (typeof id !== 'string' || typeof type !== 'string' || typeof workspaceId !== 'string') return undefined;
  if (typeof createdAt !== 'string' || typeof test !== 'boolean') return undefined;
  return { id, type, workspaceId, createdAt, test, data };
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
