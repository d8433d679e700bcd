import { isRecord } from './verify.js';

/** The fields of GET /payment-intents/{id} that the receiver checks (the response carries more). */
export interface PaymentIntent {
  readonly id: string;
  readonly status: 'processing' | 'succeeded' | 'failed';
  readonly invoiceId: string;
  /** The invoice's externalId: the merchant's order reference, if one was sent. */
  readonly externalId: string | null;
  /** USDC as a decimal string, six decimals ("12.500000"). */
  readonly amount: string;
  readonly currency: string;
  readonly recipient: string;
}

/** Reads one payment intent. Rejects when it cannot: the caller answers 503 so the event comes back. */
export type IntentLookup = (paymentIntentId: string) => Promise<PaymentIntent>;

/**
 * Step 5's server-side read, with `Authorization: Bearer <API_KEY>` (permission payments:read).
 * `apiBase` is `https://<host>/w/<workspaceId>/v1`. The timeout stays under the service's 8 s per
 * delivery, so a slow API turns into our 503 rather than the service's timeout.
 */
export function paymentApi(apiBase: string, apiKey: string, timeoutMs = 5000): IntentLookup {
  const base = apiBase.replace(/\/+$/, '');
  return async (paymentIntentId) => {
    const response = await fetch(`${base}/payment-intents/${encodeURIComponent(paymentIntentId)}`, {
      headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(timeoutMs),
    });
    // 404 for an intent a signed event names means our key belongs to another workspace or the API base
    // is wrong: a configuration error, so it is retried like an outage rather than acknowledged.
    if (response.status !== 200) throw new Error(`GET /payment-intents answered ${response.status}`);
    const intent = toIntent(await response.json());
    if (!intent) throw new Error('GET /payment-intents answered an unexpected body');
    return intent;
  };
}

function toIntent(value: unknown): PaymentIntent | undefined {
  if (!isRecord(value)) return undefined;
  const { id, status, invoiceId, externalId, amount, currency, recipient } = value;
  if (typeof id !== 'string' || typeof invoiceId !== 'string' || typeof amount !== 'string') return undefined;
  if (typeof currency !== 'string' || typeof recipient !== 'string') return undefined;
  if (status !== 'processing' && status !== 'succeeded' && status !== 'failed') return undefined;
  if (externalId !== null && typeof externalId !== 'string') return undefined;
  return { id, status, invoiceId, externalId, amount, currency, recipient };
}
