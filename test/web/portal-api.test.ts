import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createTestApp, createWorkspace, newWallet, signIn } from '../support/app.js';
import { failedDelivery } from '../support/portal-browser.js';
import { startTestReceiver } from '../support/webhook-receiver.js';

const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
const { app, database, services } = testApp;
const cookie = await signIn(app, newWallet());
const workspaceId = await createWorkspace(app, cookie);
const base = `/portal/api/w/${workspaceId}`;

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH';
async function portal(method: Method, path: string, payload?: object) {
  const response = await app.inject({
    method,
    url: `${base}${path}`,
    headers: { cookie, origin: ORIGIN },
    ...(payload && { payload }),
  });
  return { status: response.statusCode, body: response.json(), headers: response.headers };
}

/** A refusal carries the one error body: a stable code, words for people, the request id of the header. */
function expectRefusal(response: Awaited<ReturnType<typeof portal>>, status: number, code: string) {
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(response.body).toMatchObject({ message: expect.any(String), requestId: response.headers['x-request-id'] });
}

const created = async (amount: string, extra: object = {}) => {
  const response = await portal('POST', '/invoices', { amount, ...extra });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; number: string; status: string };
};

describe('portal invoices', () => {
  it('lists newest first, filters by status as readers see it, and pages with a cursor', async () => {
    const first = await created('1');
    const second = await created('2,5');
    const third = await created('3');
    await portal('POST', `/invoices/${second.id}/cancel`);
    const cancelled = await portal('GET', '/invoices?status=cancelled');
    expect(cancelled.body.invoices.map((i: { id: string }) => i.id)).toEqual([second.id]);
    const open = await portal('GET', '/invoices?status=open&limit=1');
    expect(open.body.invoices.map((i: { id: string }) => i.id)).toEqual([third.id]);
    const next = await portal('GET', `/invoices?status=open&limit=1&cursor=${open.body.nextCursor}`);
    expect(next.body).toMatchObject({ invoices: [{ id: first.id }], nextCursor: null });
    // Past its deadline an open invoice is listed as expired, never as open.
    (services.clock as ManualClock).advance(3601_000);
    expect((await portal('GET', '/invoices?status=open')).body.invoices).toEqual([]);
    expect(
      (await portal('GET', '/invoices?status=expired')).body.invoices.map((i: { id: string; status: string }) => [
        i.id,
        i.status,
      ]),
    ).toEqual([
      [third.id, 'expired'],
      [first.id, 'expired'],
    ]);
    (services.clock as ManualClock).advance(-3601_000);
  });

  it('refuses an unknown status or a foreign cursor with code, message and requestId', async () => {
    expectRefusal(await portal('GET', '/invoices?status=lost'), 400, 'invalid_request');
    expectRefusal(await portal('GET', '/invoices?cursor=abc'), 400, 'invalid_cursor');
    expectRefusal(await portal('GET', '/invoices?cursor=99999999999999999999'), 400, 'invalid_cursor');
  });

  it('reads, cancels and renews an invoice, with the timeline of what happened', async () => {
    const invoice = await created('4,20');
    expect((await portal('GET', `/invoices/${invoice.id}`)).body).toMatchObject({
      id: invoice.id,
      amount: '4.200000',
      status: 'open',
    });
    const renewed = await portal('POST', `/invoices/${invoice.id}/renew`, { expiresIn: 86400 });
    expect(renewed.body).toMatchObject({ linkVersion: 2, expiresIn: 86400 });
    expect((await portal('POST', `/invoices/${invoice.id}/cancel`)).body.status).toBe('cancelled');
    expectRefusal(await portal('POST', `/invoices/${invoice.id}/renew`), 409, 'invoice_cancelled');
    expectRefusal(await portal('POST', `/invoices/${invoice.id}/renew`, { expiresIn: 5 }), 400, 'invalid_expires_in');
    const timeline = await portal('GET', `/invoices/${invoice.id}/timeline`);
    expect(timeline.body.records.map((r: { kind: string }) => r.kind)).toEqual(['created', 'renewed', 'cancelled']);
    expectRefusal(await portal('GET', `/invoices/${invoice.id}/receipt`), 409, 'invoice_not_paid');
    expectRefusal(await portal('GET', '/invoices/inv_00000000000000000000000000'), 404, 'not_found');
  });

  it('finds invoices with the invoice search', async () => {
    const invoice = await created('7', { externalId: 'order-77' });
    expect((await portal('GET', '/invoice-search?q=order-77')).body).toEqual({
      invoices: [expect.objectContaining({ id: invoice.id })],
      nextCursor: null,
    });
    expect((await portal('GET', `/invoice-search?q=${invoice.number.toLowerCase()}`)).body.invoices[0].id).toBe(
      invoice.id,
    );
    expectRefusal(await portal('GET', '/invoice-search'), 400, 'invalid_request');
  });
});

describe('portal settings', () => {
  it('reads and replaces the checkout return origins', async () => {
    expect((await portal('GET', '/checkout-settings')).body).toEqual({ origins: [] });
    expect((await portal('PUT', '/checkout-settings', { origins: ['https://Shop.example.com:443'] })).body).toEqual({
      origins: ['https://shop.example.com'],
    });
    expect((await portal('GET', '/checkout-settings')).body).toEqual({ origins: ['https://shop.example.com'] });
    const refused = await portal('PUT', '/checkout-settings', { origins: ['http://shop.example.com'] });
    expectRefusal(refused, 400, 'invalid_origin');
    expect(refused.body.details).toEqual([{ path: 'origins.0', message: 'must use https' }]);
  });

  it('limits the description to 500 characters', async () => {
    expect((await portal('PATCH', '', { description: 'é'.repeat(500) })).status).toBe(200);
    expectRefusal(await portal('PATCH', '', { description: 'é'.repeat(501) }), 400, 'description_too_long');
  });

  it('answers an empty change with the workspace as it is', async () => {
    const response = await portal('PATCH', '', {});
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ description: 'é'.repeat(500) });
  });
});

describe('portal webhook, billing, issues and dashboard', () => {
  it('configures the endpoint, sends a test event, shows it, rotates and reports the pause', async () => {
    expect((await portal('GET', '/webhook')).body).toMatchObject({ endpoint: null, enabled: false, deliveries: [] });
    expectRefusal(await portal('POST', '/webhook/test'), 409, 'webhook_not_configured');
    expectRefusal(
      await portal('PUT', '/webhook', { endpoint: 'ftp://example.com/hooks' }),
      400,
      'invalid_webhook_endpoint',
    );
    const receiver = await startTestReceiver();
    const configured = await portal('PUT', '/webhook', { endpoint: receiver.url });
    expect(configured.body).toEqual({
      endpoint: receiver.url,
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(configured.headers['cache-control']).toBe('no-store');

    const test = await portal('POST', '/webhook/test');
    expect(test.body).toMatchObject({ id: expect.stringMatching(/^test_/), delivered: true, statusCode: 200 });
    expect(receiver.received.map((r) => r.eventId)).toEqual([test.body.id]);
    expectRefusal(await portal('POST', '/webhook/test'), 429, 'webhook_test_rate_limited');
    const view = await portal('GET', '/webhook');
    expect(view.body.deliveries).toEqual([
      expect.objectContaining({ eventId: test.body.id, status: 'succeeded', attempts: 1 }),
    ]);
    expect(view.body.recentAttempts).toEqual([
      expect.objectContaining({ eventId: test.body.id, statusCode: 200, error: null }),
    ]);
    expectRefusal(await portal('POST', '/webhook/retry', { eventId: test.body.id }), 400, 'invalid_request');
    expectRefusal(await portal('POST', '/webhook/retry', { eventId: '999' }), 404, 'not_found');

    const rotated = await portal('PUT', '/webhook', { rotate: true });
    expect(rotated.body).toEqual({ endpoint: receiver.url, enabled: false, secret: expect.stringMatching(/^whsec_/) });
    expect(rotated.body.secret).not.toBe(configured.body.secret);
    expect((await portal('GET', '/issues')).body.issues).toEqual([
      expect.objectContaining({ kind: 'webhook_paused', severity: 'critical' }),
    ]);
    await portal('PUT', '/webhook', { enabled: true });
    expect((await portal('GET', '/issues')).body.issues).toEqual([]);
  });

  it('sends a failed delivery again now, once; an acknowledged one never', async () => {
    const invoice = await created('3');
    const eventId = await failedDelivery(testApp, workspaceId, invoice);
    expect((await portal('GET', '/issues')).body.issues).toEqual([
      expect.objectContaining({ kind: 'webhook_deliveries_failed', count: 1 }),
    ]);
    const retried = await portal('POST', '/webhook/retry', { eventId });
    expect(retried.body).toMatchObject({ eventId, status: 'pending', type: 'payment_intent.succeeded' });
    await sql`UPDATE webhook_deliveries SET status = 'succeeded' WHERE workspace_id = ${workspaceId} AND event_id = ${eventId}`.execute(
      database.db,
    );
    expectRefusal(await portal('POST', '/webhook/retry', { eventId }), 409, 'delivery_already_succeeded');
    expectRefusal(await portal('POST', '/webhook/retry', { eventId: 'not-an-id' }), 400, 'invalid_request');
  });

  it('shows the credits: balance, reserve, tariff', async () => {
    const billing = (await portal('GET', '/billing')).body;
    expect(billing).toMatchObject({ tariff: { '3600': 1, '86400': 2, '432000': 3 }, successFeeCredits: 1 });
    expect(billing.availableCredits).toBe(billing.creditBalance - billing.reservedCredits);
  });

  it('sums paid volume and webhook outcomes per UTC day over 30 days', async () => {
    const invoice = await created('12,5');
    const paidAt = services.clock.now();
    await sql`UPDATE invoices SET status = 'paid', paid_at = ${paidAt} WHERE workspace_id = ${workspaceId} AND id = ${invoice.id}`.execute(
      database.db,
    );
    // A payment older than the window is not counted.
    const old = await created('100');
    await sql`UPDATE invoices SET status = 'paid', paid_at = ${new Date(paidAt.getTime() - 31 * 86400_000)} WHERE workspace_id = ${workspaceId} AND id = ${old.id}`.execute(
      database.db,
    );
    const { body } = await portal('GET', '/dashboard');
    expect(body.days).toHaveLength(30);
    expect(body.days.at(-1)).toEqual({
      date: paidAt.toISOString().slice(0, 10),
      paidAmount: '12.500000',
      paidInvoices: 1,
      webhookAttempts: 1,
      webhookSucceeded: 1,
    });
    expect(body.days[0].date).toBe(body.from.slice(0, 10));
    expect(body.totals).toEqual({ paidAmount: '12.500000', paidInvoices: 1, webhookAttempts: 1, webhookSucceeded: 1 });
  });
});
