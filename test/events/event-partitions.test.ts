import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { addWeeklyPartitions, dropPartitionsBefore, partitionsOf } from '../../src/db/partitions.js';
import type { Job } from '../../src/jobs/index.js';
import { eventRetentionHandler, pruneEvents, retirePartition } from '../../src/modules/events/change-feed.jobs.js';
import { EVENT_PARTITIONS, copyWeekToHistory, isWeekRetired } from '../../src/modules/events/event-retention.repo.js';
import { findWebhookEvent } from '../../src/modules/events/index.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, GENEROUS_LIMITS, merchant } from '../support/app.js';
import { databaseBeforeMigration } from '../support/database.js';

const clock = new ManualClock();
const { app, database } = await createTestApp(GENEROUS_LIMITS, clock);
const { db, pool } = database;
const shop = await merchant(app, ['invoices:create', 'invoices:read', 'payments:read']);
const retention = { eventDays: 30, invoiceDays: 400 };

let keys = 0;
function call(method: 'GET' | 'POST', url: string, payload?: object) {
  return app.inject({
    method,
    url: `/w/${shop.workspaceId}/v1${url}`,
    headers: {
      authorization: `Bearer ${shop.apiKey}`,
      ...(method === 'POST' && { 'idempotency-key': `event-weeks-${++keys}` }),
    },
    ...(payload && { payload }),
  });
}

/** Creates an invoice at `at`; resolves its id and the id of its `invoice.created` event. */
async function invoiceAt(at: string): Promise<{ id: string; eventId: bigint }> {
  clock.set(new Date(at));
  const response = await call('POST', '/invoices', { amount: '1.00' });
  expect(response.statusCode, response.body).toBe(201);
  const id = response.json<{ id: string }>().id;
  const { rows } = await pool.query<{ id: string }>(
    `SELECT id::text FROM events WHERE workspace_id = $1 AND invoice_id = $2 AND type = 'invoice.created'`,
    [shop.workspaceId, id],
  );
  return { id, eventId: BigInt(rows[0]!.id) };
}

/** Every event row of the shop with where it lives and its physical identity: a row rewritten or moved differs. */
async function rows(where = 'true'): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT id || ' ' || tableoid::regclass || ' ' || ctid || ' ' || xmin AS row FROM events
      WHERE workspace_id = $1 AND ${where} ORDER BY id`,
    [shop.workspaceId],
  );
  return rows.map((row) => row.row);
}

async function feedIds(after = '0'): Promise<string[]> {
  const response = await call('GET', `/changes?after=${after}&limit=1000`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ events: { id: string }[] }>().events.map((event) => event.id);
}

async function createdRecords(invoiceId: string): Promise<number> {
  const response = await call('GET', `/invoices/${invoiceId}/timeline`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ records: { kind: string }[] }>().records.filter((record) => record.kind === 'created').length;
}

const bound = async () =>
  BigInt(
    (
      await pool.query<{ b: string }>(`SELECT events_pruned_through::text AS b FROM workspaces WHERE id = $1`, [
        shop.workspaceId,
      ])
    ).rows[0]!.b,
  );

const weeks = async () =>
  (await partitionsOf(db, 'events')).filter((partition) => partition.week).map((partition) => partition.name);

describe('the change feed, a partition a week', () => {
  // Weeks from Monday 2030-12-30 to Monday 2031-02-10, made ahead as the retention job makes them.
  const early = addWeeklyPartitions(db, EVENT_PARTITIONS, new Date('2031-01-01T00:00:00Z'), new Date('2031-02-12'));
  let first: { id: string; eventId: bigint }[];
  let second: { id: string; eventId: bigint }[];

  it('retention retires a week wholly past it and drops its partition: no row deleted, nothing newer touched', async () => {
    expect(await early).toHaveLength(7);
    first = [await invoiceAt('2031-01-07T10:00:00Z'), await invoiceAt('2031-01-08T10:00:00Z')];
    second = [await invoiceAt('2031-01-14T10:00:00Z'), await invoiceAt('2031-01-15T10:00:00Z')];
    // The first week's first event dated into the next one, as a transaction that took its id before
    // midnight and its time after might be: its id is below the first week's last.
    await pool.query(`UPDATE events SET created_at = '2031-01-13T00:00:01Z' WHERE workspace_id = $1 AND id = $2`, [
      shop.workspaceId,
      first[0]!.eventId,
    ]);
    expect((await rows(`id = ${first[0]!.eventId}`))[0]).toContain('events_p20310113');
    const newer = await rows(`created_at >= '2031-01-13'`);

    // The cutoff is 2031-01-18T12:00Z: the week of Monday 01-06 ends before it, that of 01-13 does not.
    clock.set(new Date('2031-02-17T12:00:00Z'));
    const { dropped } = await pruneEvents(db, clock.now(), retention);

    // Every week before it goes, those the migration made for the weeks after it ran included, and first
    // the partition of the time before them, emptied row by row by then.
    expect(dropped[0]).toBe('events_legacy');
    expect(dropped.at(-1)).toBe('events_p20310106');
    expect((await partitionsOf(db, 'events')).map((partition) => partition.name)).not.toContain('events_legacy');
    expect(dropped.filter((week) => week > 'events_p20310106')).toEqual([]);
    expect(await weeks()).not.toContain('events_p20310106');
    expect(await weeks()).toContain('events_p20310113');
    expect(await weeks()).toContain('events_p20310224'); // eight days ahead of the clock
    expect(await rows(`created_at >= '2031-01-13'`)).toEqual(newer);
    // The bound is the first week's last id: the event moved into the next week is gone from the feed
    // too, though its row is stored until its week is dropped.
    expect(await bound()).toBe(first[1]!.eventId);
    expect(await feedIds()).toEqual(second.map((invoice) => invoice.eventId.toString()));
    const expired = await call('GET', `/changes?after=${first[0]!.eventId}`);
    expect(expired.statusCode).toBe(410);
    expect(expired.json()).toMatchObject({ code: 'cursor_expired', restartCursor: first[1]!.eventId.toString() });
    // Every invoice keeps its creation once: from the history below the bound, from the feed above it.
    for (const invoice of [...first, ...second]) expect(await createdRecords(invoice.id)).toBe(1);

    // Again: nothing to do, nothing touched.
    expect(await pruneEvents(db, clock.now(), retention)).toEqual({ dropped: [], deletedRows: 0, left: [] });
    expect(await rows(`created_at >= '2031-01-13'`)).toEqual(newer);
  });

  it('a week whose drop waits on a reader is retired already, and dropped by the next run', async () => {
    // An event of a webhook kind in the week, as the webhook outbox would look it up to deliver it.
    const { rows: appended } = await pool.query<{ id: string }>(
      `SELECT append_event($1, 'payment_intent.succeeded', $2, NULL, '{}'::jsonb, '2031-01-16T10:00:00Z')::text AS id`,
      [shop.workspaceId, second[1]!.id],
    );
    const webhookEventId = BigInt(appended[0]!.id);
    const lookUp = () => findWebhookEvent(db, shop.workspaceId as WorkspaceId, webhookEventId);
    expect(await lookUp()).toMatchObject({ eventId: webhookEventId, type: 'payment_intent.succeeded' });
    clock.set(new Date('2031-02-24T12:00:00Z')); // the cutoff passes the week of 01-13 too
    const reader = new pg.Client(database.connection);
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM events WHERE workspace_id = $1`, [shop.workspaceId]);
      // The hourly job tells the operator what it had to leave.
      const lines: string[] = [];
      const log = { info: () => {}, warn: (_fields: object, line: string) => void lines.push(line) };
      await expect(
        eventRetentionHandler(db, clock, retention, log)({} as Job, new AbortController().signal),
      ).rejects.toThrow(/next event retention/);
      expect(lines).toEqual([expect.stringMatching(/^event retention left events_p20310113 for its next run: /)]);
      // Its rows are stored still, and gone for every reader.
      expect(await rows(`created_at >= '2031-01-13' AND created_at < '2031-01-20'`)).toHaveLength(4);
      expect(await bound()).toBe(webhookEventId);
      expect(await feedIds()).toEqual([]);
      expect(await lookUp()).toBeUndefined();
      for (const invoice of [...first, ...second]) expect(await createdRecords(invoice.id)).toBe(1);
      await reader.query('COMMIT');
      expect(await pruneEvents(db, clock.now(), retention)).toMatchObject({ dropped: ['events_p20310113'], left: [] });
      for (const invoice of second) expect(await createdRecords(invoice.id)).toBe(1);
    } finally {
      await reader.end();
    }
  });
});

describe('an event written into a week after its retirement (a writer whose clock is a retention behind)', () => {
  it('keeps the week until a later run retires that event too; the event reaches the history', async () => {
    // 2031-03-03 is a Monday; the clock goes past its week's retention.
    await addWeeklyPartitions(db, EVENT_PARTITIONS, new Date('2031-03-03T00:00:00Z'), new Date('2031-03-03'));
    const invoice = await invoiceAt('2031-03-04T10:00:00Z');
    clock.set(new Date('2031-04-14T12:00:00Z'));
    const cutoff = new Date('2031-03-15T12:00:00Z');
    const historyCutoff = new Date('2030-01-01T00:00:00Z');
    // Copied to the history and not yet below the bound: the timeline shows its record once, from the feed.
    await copyWeekToHistory(db, 'events_p20310303', historyCutoff);
    expect(await createdRecords(invoice.id)).toBe(1);
    let late: bigint | undefined;
    const dropped = await dropPartitionsBefore(db, EVENT_PARTITIONS, cutoff, {
      before: async (partition) => {
        const retired = await retirePartition(db, partition, historyCutoff);
        if (partition.name === 'events_p20310303') {
          const { rows } = await pool.query<{ id: string }>(
            `SELECT append_event($1, 'invoice.cancelled', $2, NULL, '{}'::jsonb, '2031-03-05T10:00:00Z')::text AS id`,
            [shop.workspaceId, invoice.id],
          );
          late = BigInt(rows[0]!.id);
        }
        return retired;
      },
      mayDrop: isWeekRetired,
    });
    expect(dropped).not.toContain('events_p20310303');
    expect(await weeks()).toContain('events_p20310303');
    expect(await bound()).toBe(invoice.eventId);
    expect(await feedIds()).toEqual([late!.toString()]);

    expect((await pruneEvents(db, clock.now(), retention)).dropped).toEqual(['events_p20310303']);
    expect(await bound()).toBe(late);
    const history = await pool.query<{ type: string }>(
      `SELECT type FROM invoice_history WHERE workspace_id = $1 AND invoice_id = $2 ORDER BY event_id`,
      [shop.workspaceId, invoice.id],
    );
    expect(history.rows.map((row) => row.type)).toEqual(['invoice.created', 'invoice.cancelled']);
  });
});

describe('an event dated in a week that has no partition yet (a clock ahead)', () => {
  it('lands in the DEFAULT partition and moves into its week when the week is made', async () => {
    const { rows: appended } = await pool.query<{ id: string }>(
      `SELECT append_event($1, 'invoice.created', 'inv_ahead', NULL, '{}'::jsonb, '2032-06-08T10:00:00Z')::text AS id`,
      [shop.workspaceId],
    );
    const id = appended[0]!.id;
    expect(await rows(`id = ${id}`)).toEqual([expect.stringMatching(new RegExp(`^${id} events_default `))]);

    expect(
      await addWeeklyPartitions(db, EVENT_PARTITIONS, new Date('2032-06-07T00:00:00Z'), new Date('2032-06-07')),
    ).toEqual(['events_p20320607']);
    expect(await rows(`id = ${id}`)).toEqual([expect.stringMatching(new RegExp(`^${id} events_p20320607 `))]);
    // The week has its own primary key, as every week made empty does.
    const { rows: keys } = await pool.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'events_p20320607'::regclass AND contype = 'p'`,
    );
    expect(keys).toHaveLength(1);
  });
});

describe('migration 0012 on a database with events', () => {
  it('keeps every event (the old table becomes the partition of all time before next Monday) and appends go on', async () => {
    const upgraded = await databaseBeforeMigration(database.connection, '0012');
    await upgraded.query(
      `INSERT INTO workspaces (id, name, wallet_address) VALUES ('ws_old', 'Old', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')`,
    );
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    // Old, recent, now; one dated next week by a clock ahead, which moves to its week, and one dated past
    // every week made, which moves to the DEFAULT partition.
    for (const at of [daysAgo(60), daysAgo(20), new Date().toISOString(), daysAgo(-8), daysAgo(-100)])
      await upgraded.query(`SELECT append_event('ws_old', 'invoice.created', 'inv_1', NULL, '{}'::jsonb, $1)`, [at]);
    const old = (await upgraded.query(`SELECT id, created_at FROM events ORDER BY id`)).rows;

    expect(await migrate(upgraded)).toContain('0012_event_partitions');
    expect((await upgraded.query(`SELECT relkind FROM pg_class WHERE relname = 'events'`)).rows).toEqual([
      { relkind: 'p' },
    ]);
    expect((await upgraded.query(`SELECT id, created_at FROM events ORDER BY id`)).rows).toEqual(old);
    const where = await upgraded.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM events ORDER BY id`,
    );
    expect(where.rows.map((row) => row.partition.replace(/\d{8}$/, 'W'))).toEqual([
      'events_legacy',
      'events_legacy',
      'events_legacy',
      'events_pW',
      'events_default',
    ]);
    const partitions = await upgraded.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'events'::regclass AND c.relname LIKE 'events_p%' ORDER BY 1`,
    );
    expect(partitions.rows).toHaveLength(7);
    // The old table kept its indexes as they were: none was built anew.
    const indexes = await upgraded.query<{ name: string }>(
      `SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'events_legacy'::regclass ORDER BY 1`,
    );
    expect(indexes.rows.map((row) => row.name)).toEqual(['events_legacy_invoice_idx', 'events_legacy_pkey']);
    const appended = await upgraded.query<{ id: string }>(
      `SELECT append_event('ws_old', 'invoice.paid', 'inv_1', NULL, '{}'::jsonb, now())::text AS id`,
    );
    expect(appended.rows[0]!.id).toBe(String(old.length + 1));
  });
});
