import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ChangeFeedService } from '../../src/modules/events/change-feed.service.js';
import { append, WorkspaceWrites } from '../../src/modules/events/index.js';
import { jsonbText, RecentEvents, recentEventsOf, type RecentRun } from '../../src/modules/events/recent-events.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { OperatorLog } from '../../src/shared/operator-log.js';
import { createTestApp, merchant } from '../support/app.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000', NEW_WORKSPACE_CREDITS: '1000' });
const db = database.db;
/** The feed as a process that wrote none of the events reads it: from the table. */
const fromTable = new ChangeFeedService({ db });
const log = new OperatorLog();

/** The ids of the workspace's events this process remembers, among its first 100. */
const remembered = (workspaceId: WorkspaceId) =>
  Array.from({ length: 100 }, (_, index) => BigInt(index))
    .filter((after) => recentEventsOf(db)!.run(workspaceId, after, 1).count === 1)
    .map((after) => String(after + 1n));

interface Page {
  events: { id: string; type: string; data: unknown }[];
  nextCursor: string;
  hasMore: boolean;
}

async function workspace() {
  const m = await merchant(app, ['invoices:create', 'invoices:read']);
  const workspaceId = m.workspaceId as WorkspaceId;
  let made = 0;
  const create = (payload: Record<string, unknown> = { amount: '1' }) =>
    app
      .inject({
        method: 'POST',
        url: `/w/${workspaceId}/v1/invoices`,
        headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': `recent-${++made}` },
        payload,
      })
      .then((response) => expect(response.statusCode, response.body).toBe(201));
  const ask = (after: string, limit: number) =>
    app.inject({
      method: 'GET',
      url: `/w/${workspaceId}/v1/changes?after=${after}&limit=${limit}`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
  const changes = async (after: string, limit: number) => {
    const response = await ask(after, limit);
    expect(response.statusCode, response.body).toBe(200);
    // A page from memory goes out in pieces, announced by their total length.
    expect(response.headers['content-length']).toBe(String(response.rawPayload.length));
    return response.body;
  };
  return { workspaceId, create, changes, ask };
}

/** Events appended the way the payment engine appends them, with data that exercises jsonb's text form. */
function paymentEvents(workspaceId: WorkspaceId, invoiceId: string, at: Date) {
  const data = {
    paymentIntent: { id: 'pi_1', amount: '1.500000', confirmations: 12, final: true, note: null },
    ключ: 'значение ☃ 𝄞',
    zz: ['tab\there', 'quote " and \\ backslash', 'line\nbreak \u0001 control', 0.25, -3],
    a: { nested: { deeper: [] as unknown[], empty: {} }, when: new Date('2026-11-29T08:00:00.123Z') },
    skipped: undefined,
  };
  return [
    { workspaceId, type: 'payment_intent.succeeded' as const, invoiceId, paymentIntentId: 'pi_1', data, at },
    { workspaceId, type: 'transfer.unmatched' as const, invoiceId: null, data, at },
  ];
}

describe('the change feed from the events this process committed', () => {
  it('serves pages byte for byte as the table would, and from memory', async () => {
    const { workspaceId, create, changes } = await workspace();
    await create({ amount: '2.5', description: 'Tea — «green» 🍵', externalId: 'order "7"' });
    // Concurrent creates are written as one group (create_invoice_group).
    await Promise.all(Array.from({ length: 12 }, () => create()));
    await WorkspaceWrites.transaction(db, log, async (_trx, writes) => {
      for (const event of paymentEvents(workspaceId, 'inv_paid', new Date('2026-11-29T08:00:01.5Z')))
        writes.append(workspaceId, event as never);
    });
    for (const [after, limit] of [
      ['0', 1000],
      ['0', 5],
      ['5', 5],
      ['12', 3],
      ['15', 10],
    ] as const) {
      const served = await changes(after, limit);
      expect(served).toBe((await fromTable.page(workspaceId, after, limit)).toString());
    }
    const whole = await changes('0', 1000);
    const page = JSON.parse(whole) as Page;
    expect(page.events.map((event) => event.type).slice(-3)).toEqual([
      'invoice.created',
      'payment_intent.succeeded',
      'transfer.unmatched',
    ]);

    // The table changed behind the service's back, which nothing does: the service still answers what
    // was committed, so it reads it from memory.
    await sql`UPDATE events SET data = '{"changed": true}' WHERE workspace_id = ${workspaceId}`.execute(db);
    expect(await changes('0', 1000)).toBe(whole);
    expect((await fromTable.page(workspaceId, '0', 2)).toString()).toContain('"changed": true');
  });

  it('reads the table for a page holding an event it did not write, or a cursor it must judge', async () => {
    const { workspaceId, create, changes } = await workspace();
    for (let i = 0; i < 3; i++) await create();
    // Another process's event: appended without this process remembering it.
    await db
      .transaction()
      .execute((trx) => append(trx, workspaceId, paymentEvents(workspaceId, 'inv_x', new Date())[1]! as never));
    await create();
    expect(remembered(workspaceId)).toEqual(['1', '2', '3', '5']);
    for (const [after, limit] of [
      ['0', 3],
      ['0', 10],
      ['3', 1],
      ['4', 10],
      ['5', 10],
    ] as const)
      expect(await changes(after, limit)).toBe((await fromTable.page(workspaceId, after, limit)).toString());
  });

  it('judges cursors by the database even when every event is remembered: beyond the last, expired', async () => {
    const { workspaceId, create, changes, ask } = await workspace();
    for (let i = 0; i < 5; i++) await create();
    expect(remembered(workspaceId)).toEqual(['1', '2', '3', '4', '5']);
    await sql`UPDATE workspaces SET events_pruned_through = 2 WHERE id = ${workspaceId}`.execute(db);
    expect((JSON.parse(await changes('0', 10)) as Page).events.map((event) => event.id)).toEqual(['3', '4', '5']);
    expect((JSON.parse(await changes('2', 2)) as Page).events.map((event) => event.id)).toEqual(['3', '4']);
    const expired = await ask('1', 10);
    expect([expired.statusCode, expired.json()]).toMatchObject([410, { code: 'cursor_expired', restartCursor: '2' }]);
    expect((await ask('6', 10)).json()).toMatchObject({ code: 'invalid_cursor' });
  });

  it('remembers nothing of a transaction that rolled back: its ids go to the next events', async () => {
    const { workspaceId, create, changes } = await workspace();
    await create();
    await expect(
      WorkspaceWrites.transaction(db, log, async (_trx, writes) => {
        writes.append(workspaceId, paymentEvents(workspaceId, 'inv_rolled', new Date())[1]! as never);
        await writes.write(_trx);
        throw new Error('the use case failed after its events were written');
      }),
    ).rejects.toThrow('failed after');
    expect(remembered(workspaceId)).toEqual(['1']);
    await create();
    const page = JSON.parse(await changes('0', 10)) as Page;
    expect(page.events.map((event) => event.type)).toEqual(['invoice.created', 'invoice.created']);
  });
});

describe('RecentEvents', () => {
  const workspaceId = 'ws_recent' as WorkspaceId;
  const event = (n: number, data: unknown = { invoice: { n } }) => ({
    workspaceId,
    type: 'invoice.created' as const,
    invoiceId: `inv_${n}`,
    data: data as never,
    at: new Date(0),
  });
  const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => BigInt(from + index));
  /** The ids of a run's first `count` events, from the bytes a page would hold. */
  const idsOf = (run: RecentRun, count = run.count) =>
    (JSON.parse(`[${Buffer.concat(run.joined(count)).toString()}]`) as { id: string }[]).map((e) => Number(e.id));

  it('gives runs of consecutive ids, byte for byte, across gaps and ids that come late', () => {
    const recent = new RecentEvents();
    recent.remember([event(1), event(2), event(3)], ids(1, 3));
    expect(Buffer.concat(recent.run(workspaceId, 0n, 1).joined(1)).toString()).toBe(
      '{"id":"1","type":"invoice.created","createdAt":"1970-01-01T00:00:00.000Z","invoiceId":"inv_1","data":{"invoice": {"n": 1}}}',
    );
    recent.remember([event(4), event(6)], [4n, 6n]);
    expect(idsOf(recent.run(workspaceId, 0n, 10))).toEqual([1, 2, 3, 4]);
    expect(idsOf(recent.run(workspaceId, 0n, 10), 2)).toEqual([1, 2]);
    expect(idsOf(recent.run(workspaceId, 2n, 10))).toEqual([3, 4]);
    expect(recent.run(workspaceId, 4n, 10).count).toBe(0);
    expect(idsOf(recent.run(workspaceId, 5n, 10))).toEqual([6]);
    // An id that comes after a higher one fills the gap; one remembered twice changes nothing.
    recent.remember([event(5), event(2)], [5n, 2n]);
    expect(idsOf(recent.run(workspaceId, 0n, 10))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(recent.run(workspaceId, 0n, 3).count).toBe(3);
    expect(recent.newest(workspaceId)).toBe(6n);
    expect(recent.run('ws_other' as WorkspaceId, 0n, 10).count).toBe(0);
  });

  it('keeps a page in one or two pieces however many events it holds', () => {
    const recent = new RecentEvents();
    const note = 'x'.repeat(800);
    for (let from = 1; from <= 3000; from += 100)
      recent.remember(
        ids(from, from + 99).map((id) => event(Number(id), { invoice: { n: Number(id), note } })),
        ids(from, from + 99),
      );
    const page = recent.run(workspaceId, 1500n, 1000);
    expect(page.count).toBe(1000);
    expect(page.joined(1000).length).toBeLessThanOrEqual(2);
    expect(idsOf(page)).toEqual(ids(1501, 2500).map(Number));
    // A workspace's first slabs are small (one with few events takes little): a page over them has more pieces.
    expect(idsOf(recent.run(workspaceId, 0n, 1000))).toEqual(ids(1, 1000).map(Number));
    expect(recent.run(workspaceId, 2500n, 1000).count).toBe(500);
  });

  it('keeps ids with gaps (another process wrote the events between) in the same slabs', () => {
    const recent = new RecentEvents(64 * 1024);
    const odd = Array.from({ length: 2000 }, (_, index) => BigInt(2 * index + 1));
    recent.remember(
      odd.map((id) => event(Number(id))),
      odd,
    );
    // Each event is a run of its own; the size counts them as such, and the oldest go first.
    expect(recent.run(workspaceId, 0n, 10).count).toBe(0);
    expect(idsOf(recent.run(workspaceId, 3998n, 10))).toEqual([3999]);
    expect(recent.run(workspaceId, 3999n, 10).count).toBe(0);
    const kept = odd.filter((id) => recent.run(workspaceId, id - 1n, 1).count === 1);
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(odd.length);
  });

  it('forgets the oldest slabs past its size; a run taken before still holds its events', () => {
    const recent = new RecentEvents(300 * 1024);
    const note = 'y'.repeat(900);
    const remember = (from: number, to: number) =>
      recent.remember(
        ids(from, to).map((id) => event(Number(id), { invoice: { n: Number(id), note } })),
        ids(from, to),
      );
    remember(1, 100);
    const taken = recent.run(workspaceId, 0n, 100);
    remember(101, 400);
    expect(recent.run(workspaceId, 0n, 10).count).toBe(0);
    expect(idsOf(taken)).toEqual(ids(1, 100).map(Number));
    expect(recent.run(workspaceId, 399n, 10).count).toBe(1);
    expect(recent.newest(workspaceId)).toBe(400n);
    // Data it cannot write in jsonb's form is not remembered, and remembering never throws.
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 100_000; i++) at = (at['d'] = {}) as Record<string, unknown>;
    recent.remember([event(401, { n: 1e21 }), event(402, deep)], [401n, 402n]);
    expect(recent.newest(workspaceId)).toBe(400n);
    // Nor is an event larger than a slab may be (a quarter of the size): it would push out all the rest.
    recent.remember([event(403, { note: 'z'.repeat(80 * 1024) })], [403n]);
    expect(recent.newest(workspaceId)).toBe(400n);
    expect(recent.run(workspaceId, 399n, 10).count).toBe(1);
  });

  it('writes data as PostgreSQL prints the jsonb of its JSON', async () => {
    const values: unknown[] = [
      { b: 1, a: 2, aa: 3, '': 4, é: 5, z: 6, ab: 7, ü: 8, '10': 9, '9': 10 },
      { nested: { y: [1, { b: null, a: true }], x: [] }, empty: {}, list: [undefined, () => 1, 'x'] },
      ['tab\t', 'quote " \\', 'ctl \u0001 \u001f \u007f \u0080', 'emoji 🍵 ☃', '/slash', '\u2028'],
      [0, -0, 1.5, -2.25, 0.1, 123456789012345, 1e20, Number.NaN, Number.POSITIVE_INFINITY, false],
      { when: new Date('2026-11-29T08:00:00.123Z'), skipped: undefined, fn: () => 1, κλειδί: 'τιμή' },
    ];
    for (const value of values) {
      const { rows } = await sql<{ text: string }>`SELECT ${JSON.stringify(value)}::jsonb::text AS text`.execute(db);
      expect(jsonbText(value)).toBe(rows[0]!.text);
    }
  });
});
