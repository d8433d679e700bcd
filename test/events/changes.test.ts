import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { RetryLater } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { EVENT_RETENTION_JOB } from '../../src/modules/events/change-feed.jobs.js';
import { append, recentEventsOf } from '../../src/modules/events/index.js';
import { findInvoice, type InvoiceId } from '../../src/modules/invoices/index.js';
import { invoiceEvent } from '../../src/modules/invoices/invoice.present.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const clock = new ManualClock();
const { app, services, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000' },
  clock,
);
const db = database.db;
/** The retention job as a runner would hand it over, run here without one. */
const retentionRun = {
  id: 1n,
  kind: EVENT_RETENTION_JOB,
  workspaceId: null,
  payload: {},
  attempts: 1,
  maxAttempts: 25,
  claim: { id: 1n, workerId: 'test', attempts: 1 },
};

interface FeedEvent {
  id: string;
  type: string;
  createdAt: string;
  invoiceId?: string;
  paymentIntentId?: string;
  data: Record<string, unknown>;
}
interface Page {
  events: FeedEvent[];
  nextCursor: string;
  hasMore: boolean;
}

/** A workspace with a key that may create and read; made before the clock moves (sign-in uses real time). */
async function shop() {
  const m = await merchant(app, ['invoices:create', 'invoices:read', 'payments:read']);
  const call = (method: 'GET' | 'POST', path: string, headers: Record<string, string> = {}, payload?: object) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  let keys = 0;
  return {
    workspaceId: m.workspaceId as WorkspaceId,
    call,
    create: async (amount = '10') => {
      const response = await call(
        'POST',
        '/invoices',
        { 'idempotency-key': `changes-${++keys}-${m.workspaceId}` },
        { amount },
      );
      expect(response.statusCode).toBe(201);
      return response.json<{ id: string }>().id;
    },
    changes: (query: string) => call('GET', `/changes${query}`),
    page: async (query: string) => {
      const response = await call('GET', `/changes${query}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json<Page>();
    },
  };
}

const [lifecycleShop, pagingShop, otherShop, retentionShop, emptyShop, snapshotShop, gapShop, shapeShop] =
  await Promise.all([shop(), shop(), shop(), shop(), shop(), shop(), shop(), shop()]);

describe('GET /changes', () => {
  it('shows every invoice event kind with the invoice as GET /invoices/{id} shows it', async () => {
    const s = lifecycleShop;
    const cancelled = await s.create('1.5');
    const renewed = await s.create('2');
    expect((await s.call('POST', `/invoices/${cancelled}/cancel`)).statusCode).toBe(200);
    clock.advance(2 * HOUR);
    await services.invoices.expireDue();
    expect((await s.call('POST', `/invoices/${renewed}/renew`, {}, {})).statusCode).toBe(200);

    const { events, nextCursor, hasMore } = await s.page('');
    expect(events.map((event) => [event.id, event.type, event.invoiceId])).toEqual([
      ['1', 'invoice.created', cancelled],
      ['2', 'invoice.created', renewed],
      ['3', 'invoice.cancelled', cancelled],
      ['4', 'invoice.expired', renewed],
      ['5', 'invoice.renewed', renewed],
    ]);
    expect({ nextCursor, hasMore }).toEqual({ nextCursor: '5', hasMore: false });
    expect(events.map((event) => (event.data.invoice as { status: string }).status)).toEqual([
      'open',
      'open',
      'cancelled',
      'expired',
      'open',
    ]);
    // The last snapshot of each invoice is exactly what the API shows now.
    expect(events[2]!.data).toEqual({ invoice: (await s.call('GET', `/invoices/${cancelled}`)).json() });
    expect(events[4]!.data).toEqual({ invoice: (await s.call('GET', `/invoices/${renewed}`)).json() });
    expect(events[0]!.data.invoice).toMatchObject({
      id: cancelled,
      number: 'INV-000001',
      amount: '1.500000',
      linkVersion: 1,
    });
    expect(events[4]!.data.invoice).toMatchObject({ number: 'INV-000002', linkVersion: 2 });
    expect(Object.keys(events[0]!).sort()).toEqual(['createdAt', 'data', 'id', 'invoiceId', 'type']);
    expect(events[3]!.createdAt).toBe(clock.now().toISOString());
  });

  it('records invoice.created as exactly the invoice the create answered, from the API and from a batch', async () => {
    const s = snapshotShop;
    const created = await s.call(
      'POST',
      '/invoices',
      { 'idempotency-key': 'created-snapshot-1' },
      { amount: '12.5', expiresIn: 86400, externalId: 'order 7', network: 'base-sepolia' },
    );
    expect(created.statusCode, created.body).toBe(201);
    const replay = await s.call(
      'POST',
      '/invoices',
      { 'idempotency-key': 'created-snapshot-1' },
      { amount: '12.5', expiresIn: 86400, externalId: 'order 7', network: 'base-sepolia' },
    );
    expect(replay.json()).toEqual(created.json());
    const { events } = await s.page('?after=0');
    expect(events.map((event) => event.type)).toEqual(['invoice.created']);
    expect(events[0]!.data).toEqual({ invoice: created.json() });
  });

  it('maps invoice events written by payments too, and passes payment-intent data through', async () => {
    const s = otherShop;
    const invoiceId = await s.create();
    await db.transaction().execute(async (trx) => {
      const invoice = (await findInvoice(trx, s.workspaceId, invoiceId as InvoiceId))!;
      await append(trx, s.workspaceId, invoiceEvent('invoice.processing', invoice, services.config, clock.now()));
      await append(trx, s.workspaceId, {
        type: 'payment_intent.succeeded',
        invoiceId,
        paymentIntentId: 'pi_test',
        data: {
          paymentIntent: { id: 'pi_test', status: 'succeeded' },
          invoice: { id: invoiceId, number: 'INV-000001', externalId: null },
        },
        at: clock.now(),
      });
    });
    const { events } = await s.page('?after=1');
    expect(events[0]).toMatchObject({
      id: '2',
      type: 'invoice.processing',
      data: { invoice: { id: invoiceId, amount: '10.000000', number: 'INV-000001' } },
    });
    expect(events[1]).toEqual({
      id: '3',
      type: 'payment_intent.succeeded',
      createdAt: clock.now().toISOString(),
      invoiceId,
      paymentIntentId: 'pi_test',
      data: {
        paymentIntent: { id: 'pi_test', status: 'succeeded' },
        invoice: { id: invoiceId, number: 'INV-000001', externalId: null },
      },
    });
  });

  it('pages from 0 with limit; nextCursor is the last id, hasMore says whether more are committed', async () => {
    const s = pagingShop;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await s.create());

    const first = await s.page('?limit=3');
    expect(first.events.map((event) => event.id)).toEqual(['1', '2', '3']);
    expect([first.nextCursor, first.hasMore]).toEqual(['3', true]);
    const second = await s.page(`?after=${first.nextCursor}&limit=3`);
    expect(second.events.map((event) => event.id)).toEqual(['4', '5', '6']);
    expect([second.nextCursor, second.hasMore]).toEqual(['6', false]);
    const empty = await s.page(`?after=${second.nextCursor}&limit=3`);
    expect(empty).toEqual({ events: [], nextCursor: '6', hasMore: false });

    expect([...first.events, ...second.events].map((event) => event.invoiceId)).toEqual(ids);
    const all = await s.page('?after=0&limit=500');
    expect(all.events).toHaveLength(6);
    expect(all.hasMore).toBe(false);
    // A new event shows up after the saved cursor.
    await s.create();
    expect((await s.page(`?after=${empty.nextCursor}`)).events.map((event) => event.id)).toEqual(['7']);
  });

  it("never shows another workspace's events", async () => {
    const mine = await pagingShop.page('?limit=500');
    const theirs = await otherShop.page('?limit=500');
    const mineInvoices = new Set(mine.events.map((event) => event.invoiceId));
    expect(theirs.events.length).toBeGreaterThan(0);
    expect(theirs.events.some((event) => mineInvoices.has(event.invoiceId))).toBe(false);
    const { rows } = await sql<{
      id: string;
    }>`SELECT id FROM invoices WHERE workspace_id = ${pagingShop.workspaceId}`.execute(db);
    expect(new Set(rows.map((row) => row.id))).toEqual(mineInvoices);
  });

  it('writes each event in the documented shape: UTC milliseconds, ids only when set, data as stored', async () => {
    const s = shapeShop;
    const invoiceId = await s.create();
    await s.create();
    // Microseconds are cut as Date.toISOString cuts them (webhooks date the same event so), and data
    // that needs escaping goes out as the JSON text it was stored as. (A future date: the retention test
    // below prunes every old event.)
    await sql`UPDATE events SET created_at = '2099-01-02 03:04:05.123999+00',
                               data = ${String.raw`{"note":"caf\u00e9 \"q\" \\ /","n":[1,2.50,{"x":null}]}`}::json
               WHERE workspace_id = ${s.workspaceId} AND id = 1`.execute(db);
    // Read from the table, as a process that did not write these events reads them (RecentEvents).
    recentEventsOf(db)?.clear();
    const response = await s.changes('?limit=1');
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const page = response.json<Page>();
    expect(page).toEqual({
      events: [
        {
          id: '1',
          type: 'invoice.created',
          createdAt: '2099-01-02T03:04:05.123Z',
          invoiceId,
          data: { note: 'café "q" \\ /', n: [1, 2.5, { x: null }] },
        },
      ],
      nextCursor: '1',
      hasMore: true,
    });
    expect(Object.keys(page.events[0]!)).toEqual(['id', 'type', 'createdAt', 'invoiceId', 'data']);
    const [event] = (await s.page('?after=1&limit=1')).events;
    expect(new Date(event!.createdAt).toISOString()).toBe(event!.createdAt);
  });

  it('answers an empty page for a workspace without events', async () => {
    expect(await emptyShop.page('')).toEqual({ events: [], nextCursor: '0', hasMore: false });
  });

  it('pages past a gap in the ids, should one ever appear, without stopping early', async () => {
    const s = gapShop;
    for (let i = 0; i < 6; i++) await s.create();
    // Ids are consecutive by construction (the counter rolls back with its transaction); a page reads a
    // range of ids, and must still be whole if a row were ever missing.
    await sql`DELETE FROM events WHERE workspace_id = ${s.workspaceId} AND id = 2`.execute(db);
    recentEventsOf(db)?.clear();
    const first = await s.page('?limit=3');
    expect(first.events.map((event) => event.id)).toEqual(['1', '3', '4']);
    expect([first.nextCursor, first.hasMore]).toEqual(['4', true]);
    const second = await s.page(`?after=${first.nextCursor}&limit=3`);
    expect(second.events.map((event) => event.id)).toEqual(['5', '6']);
    expect(second.hasMore).toBe(false);
  });

  it('refuses malformed cursors, cursors never handed out and bad limits', async () => {
    for (const after of ['abc', '-1', '1.5', '', '%20', '0x10', '99999999999999999999', '9223372036854775808']) {
      const response = await pagingShop.changes(`?after=${after}`);
      expect([after, response.statusCode, response.json().code]).toEqual([after, 400, 'invalid_cursor']);
    }
    // Only 7 events exist: a cursor beyond them was not issued by this feed (e.g. another workspace's).
    for (const after of ['8', '9223372036854775807']) {
      const ahead = await pagingShop.changes(`?after=${after}`);
      expect([after, ahead.statusCode, ahead.json().code]).toEqual([after, 400, 'invalid_cursor']);
    }
    for (const limit of ['0', '1001', 'x', '1.5']) {
      const response = await pagingShop.changes(`?limit=${limit}`);
      expect([limit, response.statusCode, response.json().code]).toEqual([limit, 400, 'invalid_request']);
    }
  });
});

describe('retention', () => {
  it('deletes a prefix of old events, answers 410 cursor_expired with restartCursor, and paging from it works', async () => {
    const s = retentionShop;
    for (let i = 0; i < 5; i++) await s.create();
    // Ids 1 and 3 are older than 30 days; id 2 is younger (clock skew between writers): the prefix
    // through 3 goes, so "everything at or below restartCursor is gone" stays true.
    await sql`UPDATE events SET created_at = ${new Date(clock.now().getTime() - 31 * DAY)}
               WHERE workspace_id = ${s.workspaceId} AND id IN (1, 3)`.execute(db);
    const before = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM events WHERE workspace_id <> ${s.workspaceId}`.execute(db);

    await expect(
      jobHandlers(services)[EVENT_RETENTION_JOB]!(retentionRun, new AbortController().signal),
    ).rejects.toBeInstanceOf(RetryLater);

    const { rows } = await sql<{
      id: bigint;
    }>`SELECT id FROM events WHERE workspace_id = ${s.workspaceId} ORDER BY id`.execute(db);
    expect(rows.map((row) => row.id)).toEqual([4n, 5n]);
    const after = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM events WHERE workspace_id <> ${s.workspaceId}`.execute(db);
    expect(after.rows[0]!.n).toBe(before.rows[0]!.n);

    for (const cursor of ['1', '2']) {
      const expired = await s.changes(`?after=${cursor}`);
      expect(expired.statusCode).toBe(410);
      expect(expired.json()).toMatchObject({
        code: 'cursor_expired',
        restartCursor: '3',
        message: expect.any(String),
        requestId: expect.any(String),
      });
    }
    const restarted = await s.page('?after=3');
    expect(restarted.events.map((event) => event.id)).toEqual(['4', '5']);
    expect([restarted.nextCursor, restarted.hasMore]).toEqual(['5', false]);
    // "0" is the start of whatever is retained; it never expires.
    expect((await s.page('?after=0')).events.map((event) => event.id)).toEqual(['4', '5']);

    // Running again deletes nothing more; new events keep their ids.
    await expect(
      jobHandlers(services)[EVENT_RETENTION_JOB]!(retentionRun, new AbortController().signal),
    ).rejects.toBeInstanceOf(RetryLater);
    await s.create();
    expect((await s.page('?after=5')).events.map((event) => event.id)).toEqual(['6']);
  });
});
