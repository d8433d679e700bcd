import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { waitFor } from '../jobs/support.js';
import { createTestApp } from '../support/app.js';
import { signatureValid, startTestReceiver, type Behaviour } from '../support/webhook-receiver.js';
import { startWorker, webhookShop } from '../support/webhooks.js';

// Two seconds between attempts: every retry is signed at a later whole second than the one before.
const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '2' }, systemClock);
await startWorker(testApp);

describe('webhook configuration', () => {
  it('shows the signing secret only when it is created, and never in GET /webhook', async () => {
    const shop = await webhookShop(testApp);
    const empty = await shop.api('GET', '/webhook');
    expect(empty.body).toEqual({
      endpoint: null,
      enabled: false,
      pausedAt: null,
      secretCreatedAt: null,
      deliveries: [],
      recentAttempts: [],
    });

    const created = await shop.api('PUT', '/webhook', { endpoint: 'http://127.0.0.1:9/hooks', enabled: true });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      endpoint: 'http://127.0.0.1:9/hooks',
      enabled: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });

    const changed = await shop.api('PUT', '/webhook', { endpoint: 'http://127.0.0.1:9/other' });
    expect(changed.body).toEqual({ endpoint: 'http://127.0.0.1:9/other', enabled: true });
    const shown = await shop.api('GET', '/webhook');
    expect(JSON.stringify(shown.body)).not.toContain((created.body as { secret: string }).secret);
  });

  it('answers 409 webhook_not_configured to a test or retry before an endpoint is set', async () => {
    const shop = await webhookShop(testApp);
    for (const [path, payload] of [
      ['/webhook/test', undefined],
      ['/webhook/retry', { eventId: 1 }],
    ] as const) {
      const response = await shop.api('POST', path, payload);
      expect(response.status).toBe(409);
      expect(response.body).toMatchObject({ code: 'webhook_not_configured', requestId: expect.any(String) });
    }
  });
});

describe('test events', () => {
  it('sends one signed webhook.test a minute, never retried, spending no credits', async () => {
    const receiver = await startTestReceiver(() => ({ status: 500 }));
    const shop = await webhookShop(testApp);
    const secret = await shop.configure(receiver.url);
    const creditsBefore = (await shop.api('GET', '/billing')).body;

    const sent = await shop.api('POST', '/webhook/test');
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      id: expect.stringMatching(/^test_/),
      delivered: false,
      statusCode: 500,
      error: 'http_status',
    });
    const [request] = receiver.received;
    expect(signatureValid(request!, secret)).toBe(true);
    expect(JSON.parse(request!.body)).toEqual({
      id: request!.eventId,
      type: 'webhook.test',
      workspaceId: shop.workspaceId,
      createdAt: expect.any(String),
      test: true,
      data: {},
    });

    const again = await shop.api('POST', '/webhook/test');
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ code: 'webhook_test_rate_limited' });
    expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);

    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.received).toHaveLength(1);
    expect((await shop.api('GET', '/billing')).body).toEqual(creditsBefore);
    const retried = await shop.api('POST', '/webhook/retry', { eventId: request!.eventId });
    expect(retried.status).toBe(400);
  });
});

describe('delivery', () => {
  it('delivers a payment event once, signed, with the documented body', async () => {
    const receiver = await startTestReceiver();
    const shop = await webhookShop(testApp);
    const secret = await shop.configure(receiver.url);
    const eventId = await shop.emitPaymentEvent();

    await waitFor(() => (receiver.received.length > 0 ? true : undefined), 10_000, 'the delivery');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.headers['x-payment-event-id']).toBe(eventId);
    expect(signatureValid(request!, secret)).toBe(true);
    const body = JSON.parse(request!.body) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'test', 'type', 'workspaceId']);
    expect(body).toMatchObject({
      id: eventId,
      type: 'payment_intent.succeeded',
      workspaceId: shop.workspaceId,
      test: false,
    });

    const view = await shop.api('GET', '/webhook');
    expect(view.body.deliveries[0]).toMatchObject({
      eventId,
      status: 'succeeded',
      attempts: 1,
      lastStatusCode: 200,
      lastError: null,
      nextAttemptAt: null,
    });
  });

  it(
    'retries 500, 302, a dropped connection and a timeout with the same id and fresh signatures until the receiver recovers',
    { timeout: 60_000 },
    async () => {
      const script: Behaviour[] = [{ status: 500 }, 'redirect', 'close', 'hang', { status: 204 }];
      const receiver = await startTestReceiver((_request, index) => script[Math.min(index, script.length - 1)]!);
      const shop = await webhookShop(testApp);
      const secret = await shop.configure(receiver.url);
      const eventId = await shop.emitPaymentEvent();

      await waitFor(() => (receiver.received.length >= 5 ? true : undefined), 40_000, 'five attempts');
      const view = await waitFor(
        async () => {
          const { body } = await shop.api('GET', '/webhook');
          return body.deliveries[0]?.status === 'succeeded' ? body : undefined;
        },
        5_000,
        'the delivery to succeed',
      );

      expect(receiver.received.map((request) => request.eventId)).toEqual(Array(5).fill(eventId));
      expect(receiver.received.every((request) => signatureValid(request, secret))).toBe(true);
      const timestamps = receiver.received.map((request) => Number(request.headers['x-payment-timestamp']));
      expect(new Set(timestamps).size).toBe(5);
      expect(new Set(receiver.received.map((request) => request.body)).size).toBe(1);

      expect(view.deliveries[0]).toMatchObject({ eventId, status: 'succeeded', attempts: 5, lastStatusCode: 204 });
      const attempts = [...view.recentAttempts]
        .reverse()
        .map((attempt: { statusCode: number | null; error: string | null }) => [attempt.statusCode, attempt.error]);
      expect(attempts).toEqual([
        [500, 'http_status'],
        [302, 'redirect'],
        [null, 'connection_reset'],
        [null, 'timeout'],
        [204, null],
      ]);
      expect(JSON.stringify(view)).not.toContain('secret internals');
    },
  );
});
