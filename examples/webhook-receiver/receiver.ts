import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventStore, FulfilmentRecord } from './event-store.js';
import { matchIntent, type OrderStore } from './orders.js';
import type { IntentLookup, PaymentIntent } from './payment-api.js';
import { checkEvent, DEFAULT_SKEW_SECONDS, paymentIntentIdOf } from './verify.js';

export interface ReceiverOptions {
  /** The workspace's signing secret (`whsec_…`), used as the HMAC key as it is; around a rotation, the new and the old. */
  readonly secret: string | readonly string[];
  /** The only tenant whose events this receiver accepts. */
  readonly workspaceId: string;
  readonly lookupIntent: IntentLookup;
  readonly orders: OrderStore;
  readonly store: EventStore;
  /**
   * Delivers the goods. Starts once the record is durable; the 2xx does not wait for it. At least once:
   * a crash before it finishes runs it again at `resumePending`, so make it idempotent per order.
   */
  readonly onFulfil: (record: FulfilmentRecord) => Promise<void> | void;
  /** Every answered request, once; the place to log and to alert on `mismatch`. Must not throw. */
  readonly onDecision?: (decision: Decision) => void;
  /** A fulfilment threw; it stays pending until `resumePending` runs it again. */
  readonly onFulfilFailed?: (record: FulfilmentRecord, error: unknown) => void;
  readonly skewSeconds?: number;
  /** Milliseconds since the epoch; injected so tests need no fake timers. */
  readonly now?: () => number;
  readonly maxBodyBytes?: number;
}

/**
 * What happened to one request. Only 2xx stops the service's retries, so: 2xx when the event is handled
 * or can never be (test, other type, no order, final mismatch); 401/400/403 when the request is not a
 * valid event for us; 503 when a later retry can succeed (API or store unavailable, payment still processing).
 */
export type Outcome = 'queued' | 'duplicate' | 'test' | 'ignored_type' | 'no_order' | 'mismatch' | 'rejected' | 'retry';

export interface Decision {
  readonly status: number;
  readonly outcome: Outcome;
  readonly reason?: string;
  readonly eventId?: string;
  readonly paymentIntentId?: string;
}

export interface Receiver {
  /** A node:http request handler: `http.createServer(receiver.handle)`. */
  readonly handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** Runs the recorded fulfilments not yet marked done (call at start). Resolves with how many it started. */
  resumePending(): Promise<number>;
  /** Resolves when the fulfilments started so far have finished. */
  drain(): Promise<void>;
}

export function createReceiver(options: ReceiverOptions): Receiver {
  const now = options.now ?? Date.now;
  const running = new Map<string, Promise<void>>();

  /** Starts one fulfilment unless the same record is already running. Never rejects. */
  function fulfil(record: FulfilmentRecord): void {
    const key = JSON.stringify([record.workspaceId, record.eventId]);
    if (running.has(key)) return;
    const task = (async () => {
      try {
        await options.onFulfil(record);
        await options.store.markFulfilled(record.workspaceId, record.eventId);
      } catch (error) {
        options.onFulfilFailed?.(record, error);
      } finally {
        running.delete(key);
      }
    })();
    running.set(key, task);
  }

  async function decide(request: IncomingMessage): Promise<Decision> {
    if (request.method !== 'POST') return { status: 405, outcome: 'rejected', reason: 'method_not_allowed' };
    // Step 1: the signature covers these exact bytes; parsing and re-serializing would change them.
    const raw = await readBody(request, options.maxBodyBytes ?? 1024 * 1024);
    if (!raw) return { status: 413, outcome: 'rejected', reason: 'body_too_large' };

    // Steps 2, 3 and 4's parse: a request that does not prove itself leaves no trace.
    const check = checkEvent(options.secret, raw, request.headers, now(), options.skewSeconds ?? DEFAULT_SKEW_SECONDS);
    if (!check.ok) return { status: check.status, outcome: 'rejected', reason: check.reason };

    // Step 4: the envelope's tenant and kind.
    const event = check.event;
    const eventId = event.id;
    // Correctly signed but for another tenant: a configuration error (secret shared, wrong WORKSPACE_ID).
    // Not 2xx, so the delivery stays visible as failing in the service and can be retried once fixed.
    if (event.workspaceId !== options.workspaceId)
      return { status: 403, outcome: 'rejected', reason: 'wrong_workspace', eventId };
    if (event.test || event.type === 'webhook.test') return { status: 200, outcome: 'test', eventId };
    // invoice.scheduled and any future kind are not proof of payment.
    if (event.type !== 'payment_intent.succeeded')
      return { status: 200, outcome: 'ignored_type', reason: event.type, eventId };
    const paymentIntentId = paymentIntentIdOf(event);
    if (!paymentIntentId) return { status: 400, outcome: 'rejected', reason: 'malformed_event', eventId };

    // Step 5: the service's current record, not the event body, decides.
    let intent: PaymentIntent;
    try {
      intent = await options.lookupIntent(paymentIntentId);
    } catch {
      return { status: 503, outcome: 'retry', reason: 'intent_unavailable', eventId, paymentIntentId };
    }
    const order = await options.orders.find(intent);
    if (!order) return { status: 200, outcome: 'no_order', eventId, paymentIntentId };
    const match = matchIntent(intent, order, paymentIntentId);
    if (!match.ok)
      return {
        status: match.retry ? 503 : 200,
        outcome: match.retry ? 'retry' : 'mismatch',
        reason: match.reason,
        eventId,
        paymentIntentId,
      };

    // Step 6: durable first, 2xx after. A timeout after this point brings a duplicate, which stops here.
    const record: FulfilmentRecord = {
      workspaceId: event.workspaceId,
      eventId,
      paymentIntentId,
      invoiceId: intent.invoiceId,
      orderId: order.id,
      receivedAt: new Date(now()).toISOString(),
    };
    let first: boolean;
    try {
      first = await options.store.recordOnce(event.workspaceId, eventId, record);
    } catch {
      return { status: 503, outcome: 'retry', reason: 'store_unavailable', eventId, paymentIntentId };
    }
    if (!first) return { status: 200, outcome: 'duplicate', eventId, paymentIntentId };
    fulfil(record);
    return { status: 200, outcome: 'queued', eventId, paymentIntentId };
  }

  return {
    handle(request, response) {
      void (async () => {
        let decision: Decision;
        try {
          decision = await decide(request);
        } catch {
          // Anything unforeseen (an order lookup that throws, a dropped connection): let the service retry.
          decision = { status: 500, outcome: 'retry', reason: 'internal_error' };
        }
        // The service keeps no response body; this one is for people testing with curl.
        response
          .writeHead(decision.status, { 'content-type': 'application/json' })
          .end(JSON.stringify({ outcome: decision.outcome, reason: decision.reason }));
        options.onDecision?.(decision);
      })();
    },
    async resumePending() {
      const records = await options.store.pending();
      records.forEach(fulfil);
      return records.length;
    },
    async drain() {
      while (running.size > 0) await Promise.all(running.values());
    },
  };
}

/** The raw body, or undefined when it exceeds `limit` (the rest is read and discarded). */
async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  return size <= limit ? Buffer.concat(chunks) : undefined;
}
