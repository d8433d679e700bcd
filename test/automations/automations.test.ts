import { describe, expect, it } from 'vitest';
import { RetryLater } from '../../src/jobs/index.js';
import type { AutomationId } from '../../src/modules/automations/automation.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';

const clock = new ManualClock();
const { app, services, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: '100' }, clock);
const db = database.db;
const HOUR = 3_600_000;
const OTHER_ADDRESS = '0x000000000000000000000000000000000000dEaD';
const DAY = 24 * HOUR;

interface View {
  id: string;
  status: string;
  pausedReason: { code: string; message: string } | null;
  nextRunAt: string | null;
  upcoming: string[];
  occurrences: number;
  skipped: number;
  lastInvoiceId: string | null;
}

let keys = 0;
async function shop() {
  // Each test starts at the real time (sign-in messages carry it), then moves the clock as it needs.
  clock.set(new Date());
  const m = await merchant(app, [
    'invoices:create',
    'invoices:read',
    'payments:read',
    'billing:read',
    'settings:write',
  ]);
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', path: string, payload?: object) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': `automation-${(keys += 1)}` },
      ...(payload && { payload }),
    });
  const create = async (body: object) => {
    const response = await call('POST', '/automations', body);
    if (response.statusCode !== 201) throw new Error(response.body);
    return response.json<View>();
  };
  /** One run of the automation's job, as the worker would make it. */
  const run = async (id: string) => {
    const outcome = await services.automations.run(m.workspaceId as WorkspaceId, id as AutomationId).catch((e) => e);
    if (outcome !== undefined && !(outcome instanceof RetryLater)) throw outcome;
    return outcome as RetryLater | undefined;
  };
  const read = async (id: string) => (await call('GET', `/automations/${id}`)).json<View>();
  const invoicesOf = (id: string) =>
    db
      .selectFrom('invoices')
      .select(['id', 'number', 'occurrence', 'external_id', 'source'])
      .where('workspace_id', '=', m.workspaceId)
      .where('automation_id', '=', id)
      .orderBy('occurrence')
      .execute();
  return { ...m, call, create, run, read, invoicesOf };
}

const monthly = (startAt: Date, template: object = {}) => ({
  name: 'Rent',
  template: { amount: '25.00', externalId: 'rent-{n}-{date}', ...template },
  schedule: { every: 'month', startAt: startAt.toISOString() },
});

describe('an automation', () => {
  it('creates exactly one numbered invoice per occurrence, with invoice.scheduled in the feed', async () => {
    const s = await shop();
    const startAt = new Date('2027-01-31T09:00:00.000Z');
    const automation = await s.create(monthly(startAt));
    expect(automation).toMatchObject({
      id: expect.stringMatching(/^aut_/),
      status: 'active',
      nextRunAt: startAt.toISOString(),
      occurrences: 0,
      upcoming: [
        '2027-01-31T09:00:00.000Z',
        '2027-02-28T09:00:00.000Z',
        '2027-03-31T09:00:00.000Z',
        '2027-04-30T09:00:00.000Z',
        '2027-05-31T09:00:00.000Z',
      ],
    });
    // Not due yet: the job sleeps until the occurrence, an hour at most at a time.
    clock.set(new Date(startAt.getTime() - 120_000));
    expect((await s.run(automation.id))?.delaySeconds).toBe(120);
    clock.set(new Date(startAt.getTime() - 7_200_000));
    expect((await s.run(automation.id))?.delaySeconds).toBe(3600);
    expect(await s.invoicesOf(automation.id)).toEqual([]);

    clock.set(startAt);
    // Two runs of the same occurrence at once (two workers): one invoice.
    await Promise.all([s.run(automation.id), s.run(automation.id), s.run(automation.id)]);
    await s.run(automation.id);
    const [first, ...others] = await s.invoicesOf(automation.id);
    expect(others).toEqual([]);
    expect(first).toMatchObject({ occurrence: 1, external_id: 'rent-1-2027-01-31', source: 'automation' });
    const invoice = (await s.call('GET', `/invoices/${first!.id}`)).json();
    expect(invoice).toMatchObject({
      number: 'INV-000001',
      amount: '25.000000',
      automationId: automation.id,
      occurrence: 1,
    });
    expect(await s.read(automation.id)).toMatchObject({
      occurrences: 1,
      lastInvoiceId: first!.id,
      nextRunAt: '2027-02-28T09:00:00.000Z',
    });
    const feed = (await s.call('GET', '/changes')).json<{ events: { type: string; data: object }[] }>();
    expect(feed.events.map((event) => event.type)).toEqual(['invoice.created', 'invoice.scheduled']);
    expect(feed.events[1]!.data).toMatchObject({ automationId: automation.id, occurrence: 1, invoice });
    // The invoice costs what any invoice costs: 1 credit, 1 reserved for the success fee.
    expect((await s.call('GET', '/billing')).json()).toMatchObject({ creditBalance: 99, reservedCredits: 1 });
    // The timeline of the invoice shows it was scheduled.
    const timeline = (await s.call('GET', `/invoices/${first!.id}/timeline`)).json<{ records: { kind: string }[] }>();
    expect(timeline.records.map((record) => record.kind)).toEqual(['created', 'scheduled']);
  });

  it('skips occurrences missed by more than one period after downtime, and counts them', async () => {
    const s = await shop();
    const automation = await s.create({
      name: 'Daily',
      template: { amount: '1' },
      schedule: { every: 'day', startAt: new Date(clock.now().getTime() + HOUR).toISOString() },
    });
    clock.advance(HOUR + 5 * DAY + HOUR);
    await s.run(automation.id);
    expect((await s.invoicesOf(automation.id)).map((invoice) => invoice.occurrence)).toEqual([6]);
    expect(await s.read(automation.id)).toMatchObject({ occurrences: 1, skipped: 5 });
  });

  it('pauses on insufficient credits, shows in GET /issues, and resumes with the next occurrence to come', async () => {
    const s = await shop();
    const automation = await s.create({
      name: 'Hourly',
      template: { amount: '1' },
      schedule: { every: 'hour', startAt: new Date(clock.now().getTime() + 60_000).toISOString() },
    });
    await db.updateTable('credit_accounts').set({ balance: 0n }).where('workspace_id', '=', s.workspaceId).execute();
    clock.advance(60_000);
    expect(await s.run(automation.id)).toBeUndefined();
    expect(await s.invoicesOf(automation.id)).toEqual([]);
    const paused = await s.read(automation.id);
    expect(paused).toMatchObject({
      status: 'paused',
      nextRunAt: null,
      pausedReason: { code: 'insufficient_credits', message: expect.any(String) },
    });
    const issues = (await s.call('GET', '/issues')).json<{ issues: { kind: string; hint: string }[] }>();
    expect(issues.issues[0]).toMatchObject({ kind: 'automation_paused', hint: expect.stringContaining('buy credits') });
    // A paused automation does not run, whatever the time.
    clock.advance(3 * HOUR);
    expect(await s.run(automation.id)).toBeUndefined();
    expect(await s.invoicesOf(automation.id)).toEqual([]);

    await db.updateTable('credit_accounts').set({ balance: 10n }).where('workspace_id', '=', s.workspaceId).execute();
    const resumed = (await s.call('POST', `/automations/${automation.id}/resume`)).json<View>();
    // Occurrences 1–3 passed while paused; the 4th is due now, so it is the next.
    expect(resumed).toMatchObject({ status: 'active', pausedReason: null, skipped: 3 });
    expect(new Date(resumed.nextRunAt!).getTime()).toBeGreaterThanOrEqual(clock.now().getTime());
    const after = (await s.call('GET', '/issues')).json<{ issues: { kind: string }[] }>();
    expect(after.issues.map((issue) => issue.kind)).not.toContain('automation_paused');
    clock.set(new Date(resumed.nextRunAt!));
    await s.run(automation.id);
    expect((await s.invoicesOf(automation.id)).map((invoice) => invoice.occurrence)).toEqual([4]);
  });

  it('pauses when the return origin of its template was removed', async () => {
    const s = await shop();
    expect((await s.call('PUT', '/checkout-settings', { origins: ['https://shop.example'] })).statusCode).toBe(200);
    const automation = await s.create(
      monthly(new Date(clock.now().getTime() + HOUR), { successUrl: 'https://shop.example/thanks' }),
    );
    await s.call('PUT', '/checkout-settings', { origins: [] });
    clock.advance(HOUR);
    await s.run(automation.id);
    expect(await s.read(automation.id)).toMatchObject({
      status: 'paused',
      pausedReason: { code: 'return_origin_not_allowed' },
    });
  });

  it('refuses a template or schedule that POST /invoices would refuse, with the same codes', async () => {
    const s = await shop();
    const later = new Date(clock.now().getTime() + HOUR);
    for (const [body, status, code] of [
      [monthly(later, { amount: '0' }), 400, 'invalid_amount'],
      [monthly(later, { expiresIn: 5 }), 400, 'invalid_expires_in'],
      [monthly(later, { successUrl: 'https://elsewhere.example/x' }), 400, 'return_origin_not_allowed'],
      [monthly(later, { payTo: OTHER_ADDRESS }), 403, 'pay_to_mismatch'],
      [{ ...monthly(later), schedule: { every: 'month', startAt: '2020-01-01T00:00:00Z' } }, 400, 'invalid_schedule'],
      [
        { ...monthly(later), schedule: { every: 'month', interval: 13, startAt: later.toISOString() } },
        400,
        'invalid_schedule',
      ],
      [{ ...monthly(later), schedule: { every: 'year', startAt: later.toISOString() } }, 400, 'invalid_request'],
    ] as const) {
      const response = await s.call('POST', '/automations', body);
      expect([response.statusCode, response.json().code], JSON.stringify(body)).toEqual([status, code]);
    }
    const { automations } = (await s.call('GET', '/automations')).json<{ automations: unknown[] }>();
    expect(automations).toEqual([]);
  });

  it('takes payTo in a template as POST /invoices does, on creation and change, API and portal: the wallet passes and is not kept, another is 403', async () => {
    const s = await shop();
    const portal = (method: 'POST' | 'PATCH', path: string, payload: object) =>
      app.inject({
        method,
        url: `/portal/api/w/${s.workspaceId}${path}`,
        headers: { cookie: s.cookie, origin: ORIGIN },
        payload,
      });
    const later = new Date(clock.now().getTime() + HOUR);
    const wallet = s.wallet.address;
    const viaApi = await s.create(monthly(later, { payTo: wallet }));
    expect(viaApi).toMatchObject({ template: { amount: '25.00' } });
    expect(viaApi).not.toHaveProperty('template.payTo');
    const viaPortal = await portal('POST', '/automations', monthly(later, { payTo: wallet.toLowerCase() }));
    expect(viaPortal.statusCode).toBe(201);
    expect(viaPortal.json()).not.toHaveProperty('template.payTo');
    const portalRefused = await portal('POST', '/automations', monthly(later, { payTo: OTHER_ADDRESS }));
    expect([portalRefused.statusCode, portalRefused.json().code]).toEqual([403, 'pay_to_mismatch']);

    const patch = (call: typeof s.call | typeof portal, amount: string, payTo: string) =>
      call('PATCH', `/automations/${viaApi.id}`, { template: { amount, payTo } });
    for (const [call, amount] of [
      [s.call, '30'],
      [portal, '31'],
    ] as const) {
      const before = await s.read(viaApi.id);
      const refused = await patch(call, amount, OTHER_ADDRESS);
      expect([refused.statusCode, refused.json().code]).toEqual([403, 'pay_to_mismatch']);
      expect(await s.read(viaApi.id)).toEqual(before);
      const changed = await patch(call, amount, wallet.toUpperCase().replace('0X', '0x'));
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toMatchObject({ template: { amount } });
      expect(changed.json()).not.toHaveProperty('template.payTo');
    }
    const stored = await db
      .selectFrom('automations')
      .select('template')
      .where('id', '=', viaApi.id)
      .executeTakeFirstOrThrow();
    expect(stored.template).toEqual({ amount: '31' });

    // Each occurrence's invoice pays the workspace wallet.
    clock.advance(HOUR);
    await s.run(viaApi.id);
    const [invoice] = await s.invoicesOf(viaApi.id);
    expect((await s.call('GET', `/invoices/${invoice!.id}`)).json()).toMatchObject({ payTo: wallet.toLowerCase() });
  });

  it('can be changed, paused, resumed and ended; an ended one refuses changes', async () => {
    const s = await shop();
    const automation = await s.create(monthly(new Date(clock.now().getTime() + HOUR)));
    const changed = await s.call('PATCH', `/automations/${automation.id}`, {
      name: 'Rent 2027',
      template: { amount: '30' },
      maxOccurrences: 2,
    });
    expect(changed.json()).toMatchObject({
      name: 'Rent 2027',
      template: { amount: '30' },
      upcoming: [expect.any(String), expect.any(String)],
    });
    expect((await s.call('POST', `/automations/${automation.id}/pause`)).json()).toMatchObject({
      status: 'paused',
      pausedReason: { code: 'paused_by_owner' },
    });
    expect((await s.call('POST', `/automations/${automation.id}/resume`)).json()).toMatchObject({ status: 'active' });
    expect((await s.call('POST', `/automations/${automation.id}/end`)).json()).toMatchObject({
      status: 'ended',
      nextRunAt: null,
      upcoming: [],
    });
    for (const path of [`/automations/${automation.id}/resume`, `/automations/${automation.id}`]) {
      const response = await s.call(
        path.endsWith('resume') ? 'POST' : 'PATCH',
        path,
        path.endsWith('resume') ? undefined : { name: 'x' },
      );
      expect([response.statusCode, response.json().code]).toEqual([409, 'automation_ended']);
    }
    const page = (await s.call('GET', '/automations?limit=1')).json<{
      automations: View[];
      nextCursor: string | null;
    }>();
    expect(page.automations.map((a) => a.id)).toEqual([automation.id]);
    expect((await s.call('GET', '/automations/aut_00000000000000000000000000')).statusCode).toBe(404);
  });

  it('ends by itself after maxOccurrences', async () => {
    const s = await shop();
    const automation = await s.create({
      name: 'Twice',
      template: { amount: '1' },
      schedule: { every: 'day', startAt: new Date(clock.now().getTime() + HOUR).toISOString(), maxOccurrences: 2 },
    });
    clock.advance(HOUR);
    await s.run(automation.id);
    clock.advance(DAY);
    await s.run(automation.id);
    expect(await s.run(automation.id)).toBeUndefined();
    expect(await s.read(automation.id)).toMatchObject({ status: 'ended', occurrences: 2 });
  });

  it('previews the first five dates of a schedule by the rules of creation, storing nothing', async () => {
    const s = await shop();
    const preview = (query: string) => s.call('GET', `/automations/preview?${query}`);
    const year = clock.now().getUTCFullYear() + 1;
    const monthEnd = await preview(`every=month&startAt=${year}-01-31T09:00:00Z`);
    expect(monthEnd.statusCode).toBe(200);
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    expect(monthEnd.json()).toEqual({
      upcoming: [
        `${year}-01-31T09:00:00.000Z`,
        `${year}-02-${leap ? 29 : 28}T09:00:00.000Z`,
        `${year}-03-31T09:00:00.000Z`,
        `${year}-04-30T09:00:00.000Z`,
        `${year}-05-31T09:00:00.000Z`,
      ],
    });
    const short = await preview(`every=week&interval=2&startAt=${year}-01-01T00:00:00Z&maxOccurrences=2`);
    expect(short.json()).toEqual({ upcoming: [`${year}-01-01T00:00:00.000Z`, `${year}-01-15T00:00:00.000Z`] });
    const past = await preview('every=day&startAt=2020-01-01T00:00:00Z');
    expect(past.statusCode).toBe(400);
    expect(past.json()).toMatchObject({ code: 'invalid_schedule' });
    const stored = await db.selectFrom('automations').select('id').where('workspace_id', '=', s.workspaceId).execute();
    expect(stored).toEqual([]);
  });

  it("lists one automation's invoices in the portal and takes the portal's comma amount", async () => {
    const s = await shop();
    const portal = (method: 'GET' | 'POST', path: string, payload?: object) =>
      app.inject({
        method,
        url: `/portal/api/w/${s.workspaceId}${path}`,
        headers: { cookie: s.cookie, origin: ORIGIN },
        ...(payload && { payload }),
      });
    const startAt = new Date(clock.now().getTime() + HOUR).toISOString();
    const created = await portal('POST', '/automations', {
      name: 'Daily',
      template: { amount: '2,50' },
      schedule: { every: 'day', startAt },
    });
    expect(created.statusCode).toBe(201);
    const automation = created.json<View & { template: { amount: string } }>();
    expect(automation.template.amount).toBe('2.50');
    const other = await s.create(monthly(new Date(clock.now().getTime() + HOUR)));
    await s.call('POST', '/invoices', { amount: '9.00' });
    clock.advance(HOUR);
    await s.run(automation.id);
    await s.run(other.id);
    clock.advance(DAY);
    await s.run(automation.id);
    const listed = await portal('GET', `/invoices?automationId=${automation.id}`);
    expect(listed.statusCode).toBe(200);
    const { invoices } = listed.json<{ invoices: { automationId: string; occurrence: number; amount: string }[] }>();
    expect(invoices.map((invoice) => [invoice.automationId, invoice.occurrence, invoice.amount])).toEqual([
      [automation.id, 2, '2.500000'],
      [automation.id, 1, '2.500000'],
    ]);
    const all = await portal('GET', '/invoices');
    expect(all.json<{ invoices: unknown[] }>().invoices).toHaveLength(4);
  });

  it('refuses a body field on pause, resume and end (400 unknown_field), as on every action, and changes nothing', async () => {
    const s = await shop();
    const automation = await s.create(monthly(new Date('2027-03-01T09:00:00.000Z')));
    for (const command of ['pause', 'resume', 'end']) {
      const refused = await s.call('POST', `/automations/${automation.id}/${command}`, { reason: 'holiday' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'unknown_field', details: [{ path: 'reason' }] });
    }
    expect((await s.read(automation.id)).status).toBe('active');
    expect((await s.call('POST', `/automations/${automation.id}/pause`, {})).json()).toMatchObject({
      status: 'paused',
    });
  });
});
