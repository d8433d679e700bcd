import { createClient } from '@invoice-service/client';
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
 * Step 5's server-side read through the client package (permission payments:read). `apiBase` is
 * `https://<host>/w/<workspaceId>/v1`. No retries of its own and a timeout under the service's 8 s per
 * delivery: a slow or failing API turns into our 503, and the service brings the event back.
 */
export function paymentApi(apiBase: string, apiKey: string, timeoutMs = 5000): IntentLookup {
  const base = /^(?<baseUrl>.+)\/w\/(?<workspaceId>[^/]+)\/v1\/*$/.exec(apiBase)?.groups;
  if (!base) throw new Error('API_BASE must be https://<host>/w/<WORKSPACE_ID>/v1.');
  const client = createClient({ baseUrl: base.baseUrl!, workspaceId: base.workspaceId!, apiKey, retry: false });
  return async (paymentIntentId) => {
    const { data, response } = await client.GET('/payment-intents/{paymentIntentId}', {
      params: { path: { paymentIntentId } },
      signal: AbortSignal.timeout(timeoutMs),
    });
    // 404 for an intent a signed event names means our key belongs to another workspace or the API base
    // is wrong: a configuration error, so it is retried like an outage rather than acknowledged.
    if (response.status !== 200) throw new Error(`GET /payment-intents answered ${response.status}`);
    const intent = toIntent(data);
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
