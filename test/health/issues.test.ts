import { describe, expect, it } from 'vitest';
import { ISSUE_KINDS } from '../../src/modules/health/health.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { payByTransaction, scriptedChain, submitPayment, verifyPayment } from '../timeline/scripted-chain.js';

const MINUTE = 60_000;
const clock = new ManualClock();
const chain = scriptedChain();
// 30 credits: a few 5-day invoices (3 credits + 1 reserved each) take a workspace below the warning level of 20.
// Webhook retries every 60 s inside a 10-minute window, so a delivery is given up after the clock moves 11 minutes.
const { app, services, database } = await createTestApp(
  {
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    NEW_WORKSPACE_CREDITS: '30',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '60',
    WEBHOOK_RETRY_WINDOW_SECONDS: '600',
  },
  clock,
  chain,
);

// A deployment that grants less than the warning level.
const small = await createTestApp({ NEW_WORKSPACE_CREDITS: '10' });

interface Issue {
  kind: string;
  severity: string;
  since: string;
  hint: string;
  count?: number;
}

let keys = 0;

/** A workspace whose key may do everything these tests need. Made before the clock moves (sign-in uses real time). */
async function shop(
  permissions = [
    'billing:read',
    'invoices:create',
    'invoices:read',
    'payments:read',
    'webhooks:read',
    'webhooks:write',
  ],
) {
  const m = await merchant(app, permissions);
  const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  return {
    ...m,
    call,
    async invoice(body: object = { amount: '10' }) {
      const response = await call('POST', '/invoices', body, {
        'idempotency-key': `issues-${++keys}-${m.workspaceId}`,
      });
      expect(response.statusCode, response.body).toBe(201);
      return { ...response.json<{ id: string; payTo: string }>(), workspaceId: m.workspaceId };
    },
    async issues(): Promise<Issue[]> {
      const response = await call('GET', '/issues');
      expect(response.statusCode, response.body).toBe(200);
      expect(response.body).not.toContain('secret internals');
      return response.json<{ issues: Issue[] }>().issues;
    },
    /** Which issues are open: kind, since and count. */
    async summary() {
      return (await this.issues()).map(({ kind, since, count }) => ({ kind, since, count }));
    },
  };
}

const [freshShop, creditShop, paymentShop, webhookShop, pausedShop, billingLessShop, automationShop] =
  await Promise.all([shop(), shop(), shop(), shop(), shop(), shop(['invoices:read', 'payments:read']), shop()]);

/** When the ledger recorded the creation of an invoice (the database's time). */
async function creationLedgerTime(workspaceId: string, invoiceId: string): Promise<string> {
  const row = await database.db
    .selectFrom('credit_ledger')
    .select('created_at')
    .where('workspace_id', '=', workspaceId)
    .where('reference', '=', invoiceId)
    .where('kind', '=', 'invoice.created')
    .executeTakeFirstOrThrow();
  return row.created_at.toISOString();
}

describe('GET /issues', () => {
  it('answers an empty list for a fresh workspace', async () => {
    const response = await freshShop.call('GET', '/issues');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ issues: [] });
  });

  it('reports low credits since the ledger entry that took them below 20, not the latest debit, until they are back', async () => {
    const s = creditShop;
    const fiveDays = { amount: '1', expiresIn: 432000 }; // 3 credits + 1 reserved
    const first = await s.invoice(fiveDays);
    const second = await s.invoice(fiveDays);
    expect(await s.issues()).toEqual([]); // 22 available

    const third = await s.invoice(fiveDays); // 18 available
    const wentLow = await creationLedgerTime(s.workspaceId, third.id);
    expect(await s.issues()).toEqual([
      {
        kind: 'low_credits',
        severity: 'warning',
        since: wentLow,
        hint: expect.stringContaining('18 credits available'),
      },
    ]);
    const later = await s.invoice(); // 16 available: a later debit does not move `since`
    expect(await s.summary()).toEqual([{ kind: 'low_credits', since: wentLow, count: undefined }]);

    // Cancelling releases the success-fee reserve, one credit each: 19 is still low, still since the same entry.
    for (const invoice of [first, second, later])
      expect((await s.call('POST', `/invoices/${invoice.id}/cancel`)).statusCode).toBe(200);
    expect(await s.summary()).toEqual([{ kind: 'low_credits', since: wentLow, count: undefined }]);
    expect((await s.call('POST', `/invoices/${third.id}/cancel`)).statusCode).toBe(200);
    expect(await s.issues()).toEqual([]); // 20 available

    // Going below again starts a new episode.
    const fourth = await s.invoice(fiveDays);
    expect(await s.summary()).toEqual([
      { kind: 'low_credits', since: await creationLedgerTime(s.workspaceId, fourth.id), count: undefined },
    ]);
  });

  it('reports low credits since the grant when a workspace starts below the warning level', async () => {
    const m = await merchant(small.app, ['billing:read']);
    const response = await small.app.inject({
      method: 'GET',
      url: `/w/${m.workspaceId}/v1/issues`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    const grant = await small.database.db
      .selectFrom('credit_ledger')
      .select('created_at')
      .where('workspace_id', '=', m.workspaceId)
      .executeTakeFirstOrThrow();
    expect(response.json()).toEqual({
      issues: [
        {
          kind: 'low_credits',
          severity: 'warning',
          since: grant.created_at.toISOString(),
          hint: expect.stringContaining('10 credits available'),
        },
      ],
    });
  });

  it('reports payments still verifying after 10 minutes, counted, since the oldest, until they finish', async () => {
    const s = paymentShop;
    const [one, two, three] = [await s.invoice(), await s.invoice(), await s.invoice()];
    const found = { confirmations: 0 };
    const firstPayment = await submitPayment(services.payments, one);
    await verifyPayment(services.payments, chain, one, firstPayment, 10_000_000n, clock.now(), found);
    const firstAt = clock.now().toISOString();
    clock.advance(MINUTE);
    const secondPayment = await submitPayment(services.payments, two);
    await verifyPayment(services.payments, chain, two, secondPayment, 10_000_000n, clock.now(), found);
    const secondAt = clock.now().toISOString();
    // A hash nobody has seen on chain holds nothing, so it is no delayed verification.
    await submitPayment(services.payments, three);

    clock.advance(9 * MINUTE); // the first has waited exactly 10 minutes: not yet "more than"
    expect(await s.issues()).toEqual([]);
    clock.advance(1000);
    expect(await s.summary()).toEqual([{ kind: 'verification_delayed', since: firstAt, count: 1 }]);
    clock.advance(MINUTE);
    const [delayed] = await s.issues();
    expect(delayed).toEqual({
      kind: 'verification_delayed',
      severity: 'warning',
      since: firstAt,
      count: 2,
      hint: expect.stringMatching(/^2 payments .* must not pay again/),
    });

    await verifyPayment(services.payments, chain, one, firstPayment, 10_000_000n, clock.now()); // paid
    expect(await s.summary()).toEqual([{ kind: 'verification_delayed', since: secondAt, count: 1 }]);
    await verifyPayment(services.payments, chain, two, secondPayment, 10_000_000n, clock.now(), { success: false });
    expect(await s.issues()).toEqual([]);
  });

  it('reports retrying and given-up webhook deliveries, ignores test sends, and clears once delivered', async () => {
    const s = webhookShop;
    const workspaceId = s.workspaceId as WorkspaceId;
    const receiver = await startTestReceiver(() => ({ status: 500 }));
    expect((await s.call('PUT', '/webhook', { endpoint: receiver.url, enabled: true })).statusCode).toBe(200);
    const test = await s.call('POST', '/webhook/test');
    expect(test.json()).toMatchObject({ delivered: false, statusCode: 500 });
    expect(await s.issues()).toEqual([]); // a failed test send is no issue

    const firstAt = clock.now().toISOString();
    await payByTransaction(services.payments, chain, await s.invoice(), 10_000_000n, clock.now());
    clock.advance(MINUTE);
    const secondAt = clock.now().toISOString();
    await payByTransaction(services.payments, chain, await s.invoice(), 10_000_000n, clock.now());
    const feed = (await s.call('GET', '/changes?limit=500')).json<{ events: { id: string; type: string }[] }>().events;
    const [first, second] = feed.filter((event) => event.type === 'payment_intent.succeeded').map((event) => event.id);
    expect(await s.issues()).toEqual([]); // queued, not attempted yet

    await services.webhookDeliverer.attempt(workspaceId, first!);
    await services.webhookDeliverer.attempt(workspaceId, second!);
    expect(await s.issues()).toEqual([
      {
        kind: 'webhook_deliveries_retrying',
        severity: 'warning',
        since: firstAt,
        count: 2,
        hint: expect.stringContaining('retried automatically'),
      },
    ]);

    clock.advance(11 * MINUTE); // past the retry window of the first
    const gaveUpAt = clock.now().toISOString();
    await services.webhookDeliverer.attempt(workspaceId, first!);
    const issues = await s.issues();
    expect(issues.map(({ kind, since, count }) => ({ kind, since, count }))).toEqual([
      { kind: 'webhook_deliveries_failed', since: gaveUpAt, count: 1 },
      { kind: 'webhook_deliveries_retrying', since: secondAt, count: 1 },
    ]);
    expect(issues[0]).toMatchObject({
      severity: 'critical',
      hint: expect.stringMatching(/POST \/webhook\/retry.*GET \/changes/),
    });

    receiver.behave = () => ({ status: 200 });
    expect((await s.call('POST', '/webhook/retry', { eventId: first })).statusCode).toBe(200);
    // Retried by hand: pending again with its failed attempts, so retrying until it succeeds.
    expect(await s.summary()).toEqual([{ kind: 'webhook_deliveries_retrying', since: firstAt, count: 2 }]);
    await services.webhookDeliverer.attempt(workspaceId, first!);
    await services.webhookDeliverer.attempt(workspaceId, second!);
    expect(await s.issues()).toEqual([]);
  });

  it('reports a paused endpoint with its backlog since it was paused, until it is enabled again', async () => {
    const s = pausedShop;
    const receiver = await startTestReceiver();
    expect((await s.call('PUT', '/webhook', { endpoint: receiver.url, enabled: true })).statusCode).toBe(200);
    const rotated = await s.call('PUT', '/webhook', { rotate: true });
    expect(rotated.json()).toMatchObject({ enabled: false });
    const pausedAt = clock.now().toISOString();
    clock.advance(MINUTE);
    await payByTransaction(services.payments, chain, await s.invoice(), 10_000_000n, clock.now());

    const [paused] = await s.issues();
    expect(paused).toEqual({
      kind: 'webhook_paused',
      severity: 'critical',
      since: pausedAt,
      count: 1,
      hint: expect.stringContaining('PUT /webhook {"enabled": true}'),
    });
    expect(paused!.hint).not.toContain(rotated.json<{ secret: string }>().secret);

    expect((await s.call('PUT', '/webhook', { enabled: true })).statusCode).toBe(200);
    expect(await s.issues()).toEqual([]);
  });

  it('needs the billing:read permission', async () => {
    const response = await billingLessShop.call('GET', '/issues');
    expect({ status: response.statusCode, code: response.json().code }).toEqual({
      status: 403,
      code: 'permission_denied',
    });
  });

  it('lists automations the owner paused as a warning; one paused for a cause makes it critical, with that cause', async () => {
    const s = automationShop;
    const automation = async (name: string) => {
      const startAt = new Date(clock.now().getTime() + 86_400_000).toISOString();
      const created = await s.call(
        'POST',
        '/automations',
        { name, template: { amount: '5' }, schedule: { every: 'month', startAt } },
        { 'idempotency-key': `issues-${++keys}-${s.workspaceId}` },
      );
      expect(created.statusCode, created.body).toBe(201);
      return created.json<{ id: string }>().id;
    };
    const rent = await automation('Rent');
    expect((await s.call('POST', `/automations/${rent}/pause`)).statusCode).toBe(200);
    const [byOwner] = await s.issues();
    expect(byOwner).toMatchObject({ kind: 'automation_paused', severity: 'warning', count: 1 });
    expect(byOwner!.hint).toMatch(/^1 automation is paused by you .*POST \/automations\/\{id\}\/resume/);

    // A later pause by the automation's own run (credits ran out): critical, and its cause is the one named.
    const fees = await automation('Fees');
    await database.db
      .updateTable('automations')
      .set({
        status: 'paused',
        paused_reason: JSON.stringify({ code: 'insufficient_credits', message: 'Not enough credits.' }),
        paused_at: new Date(clock.now().getTime() + 1000),
      })
      .where('id', '=', fees)
      .execute();
    const [forCause] = await s.issues();
    expect(forCause).toMatchObject({
      kind: 'automation_paused',
      severity: 'critical',
      count: 2,
      since: byOwner!.since,
    });
    expect(forCause!.hint).toMatch(/^2 automations are paused .*insufficient_credits, buy credits/);
  });

  it('describes every kind in /openapi.json', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const operation = document.paths['/w/{workspaceId}/v1/issues'].get;
    expect(operation).toMatchObject({ 'x-permission': 'billing:read', tags: ['Health'] });
    for (const kind of ISSUE_KINDS) expect(operation.description).toContain(`\`${kind}\``);
    expect(operation.description).toMatch(/paused_by_owner.*a warning/);
    expect(operation.description).toMatch(/20 credits here/);
  });
});
