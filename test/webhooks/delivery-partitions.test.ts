import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { addWeeklyPartitions, partitionsOf } from '../../src/db/partitions.js';
import type { Job } from '../../src/jobs/index.js';
import { webhookRetentionHandler } from '../../src/modules/webhooks/webhook.jobs.js';
import {
  DELIVERY_PARTITIONS,
  findDeliveriesToSend,
  insertDeliveriesWithJobs,
  insertDelivery,
  requeueOrphanedDeliveries,
} from '../../src/modules/webhooks/webhook.repo.js';
import { ManualClock, systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { waitFor } from '../jobs/support.js';
import { createTestApp } from '../support/app.js';
import { databaseBeforeMigration } from '../support/database.js';
import { planOf } from '../support/query-plan.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { startWorker, webhookShop } from '../support/webhooks.js';

// Deliveries are partitioned by the week of their event (migration 0013): retention drops whole weeks,
// and a dropped week's pending deliveries (a paused endpoint's backlog) are kept and still delivered.
const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock);
const { db, pool } = testApp.database;
const worker = await startWorker(testApp);
const shop = await webhookShop(testApp);
const receiver = await startTestReceiver();
await shop.configure(receiver.url);
// Paused: its deliveries below stay as they are written (a delivery job leaves them pending).
await shop.api('PUT', '/webhook', { enabled: false });
const workspaceId = shop.workspaceId as WorkspaceId;

/** The retention's own clock: the deliveries' weeks are far from the service's. */
const retentionClock = new ManualClock();

/** Rows the last run of the hourly job said it deleted one by one. */
let deletedOneByOne = 0;

/** Runs the hourly job once at `now`; resolves the warnings it wrote to the operator's log. */
async function runRetention(now: Date): Promise<string[]> {
  retentionClock.set(now);
  const warnings: string[] = [];
  deletedOneByOne = 0;
  const log = {
    info: (fields: object) => void (deletedOneByOne = (fields as { deletedRows: number }).deletedRows),
    warn: (_fields: object, line: string) => void warnings.push(line),
  };
  await expect(
    webhookRetentionHandler(db, retentionClock, log)({} as Job, new AbortController().signal),
  ).rejects.toThrow(/next webhook history retention/);
  return warnings;
}

const delivery = (eventId: string, at: Date) => ({ eventId, type: 'invoice.paid', invoiceId: null, body: '{}', at });

/** Each delivery with where it lives and its physical identity: a row rewritten or moved differs. */
async function rows(where: string): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT tableoid::regclass || ' ' || ctid || ' ' || xmin || ' ' || event_id || ' ' || status AS row
       FROM webhook_deliveries WHERE workspace_id = $1 AND ${where} ORDER BY created_at, event_id`,
    [workspaceId],
  );
  return rows.map((row) => row.row);
}

const partitionOf = async (eventId: string) =>
  (
    await pool.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM webhook_deliveries WHERE workspace_id = $1 AND event_id = $2`,
      [workspaceId, eventId],
    )
  ).rows.map((row) => row.partition);

const weeks = async () =>
  (await partitionsOf(db, 'webhook_deliveries'))
    .filter((partition) => partition.week)
    .map((partition) => partition.name);

describe('a delivery, written in the week of its event', () => {
  it('is written once an event, as a new event’s delivery with its job and alone', async () => {
    await addWeeklyPartitions(
      db,
      DELIVERY_PARTITIONS,
      new Date('2030-01-07T00:00:00Z'),
      new Date('2030-01-07T00:00:00Z'),
    );
    const at = new Date('2030-01-09T10:00:00Z');
    expect(await insertDelivery(db, workspaceId, delivery('e101', at))).toBe(true);
    expect(await insertDelivery(db, workspaceId, delivery('e101', at))).toBe(false);
    await insertDeliveriesWithJobs(db, [{ ...delivery('e102', at), workspaceId }]);
    await insertDeliveriesWithJobs(db, [{ ...delivery('e102', at), workspaceId }]);
    expect(await partitionOf('e101')).toEqual(['webhook_deliveries_p20300107']);
    expect(await partitionOf('e102')).toEqual(['webhook_deliveries_p20300107']);
    const jobs = await db.selectFrom('jobs').select('id').where('unique_key', '=', `${workspaceId}/e102`).execute();
    expect(jobs).toHaveLength(1);
    await pool.query(`DELETE FROM jobs WHERE unique_key = $1`, [`${workspaceId}/e102`]);
    await pool.query(`DELETE FROM webhook_deliveries WHERE workspace_id = $1`, [workspaceId]);
  });
});

describe('a paused endpoint’s backlog whose week is dropped', () => {
  it('is delivered once the endpoint is resumed', async () => {
    const other = await webhookShop(testApp);
    const otherReceiver = await startTestReceiver();
    await other.configure(otherReceiver.url);
    await other.api('PUT', '/webhook', { enabled: false });
    const eventId = await other.emitPaymentEvent();
    const [before] = (
      await pool.query(
        `SELECT tableoid::regclass::text AS partition FROM webhook_deliveries WHERE event_id = $1 AND workspace_id = $2`,
        [eventId, other.workspaceId],
      )
    ).rows;
    // 45 days on, the week of the event is dropped: the partition of the time before the weeks (the table
    // as it was before 0013), or the first week.
    expect(await runRetention(new Date(Date.now() + 45 * 86_400_000))).toEqual([]);
    const names = (await partitionsOf(db, 'webhook_deliveries')).map((partition) => partition.name);
    expect(names).not.toContain(before.partition);
    expect(names).not.toContain('webhook_deliveries_legacy');
    const { rows: after } = await pool.query(
      `SELECT tableoid::regclass::text AS partition, status FROM webhook_deliveries WHERE event_id = $1 AND workspace_id = $2`,
      [eventId, other.workspaceId],
    );
    expect(after).toEqual([{ partition: 'webhook_deliveries_default', status: 'pending' }]);
    await delay(200);
    expect(otherReceiver.received).toHaveLength(0);

    await other.api('PUT', '/webhook', { enabled: true });
    await waitFor(() => (otherReceiver.received.length === 1 ? true : undefined), 10_000, 'the backlog');
    expect(otherReceiver.received[0]!.eventId).toBe(eventId);
    expect(await succeeded(other.workspaceId, eventId)).toEqual({ status: 'succeeded', attempts: 1 });
  });
});

/** Resolves the delivery's status and attempts once it succeeded. */
function succeeded(workspaceId: string, eventId: string) {
  return waitFor(
    async () => {
      const { rows } = await pool.query(
        `SELECT status, attempts FROM webhook_deliveries WHERE workspace_id = $1 AND event_id = $2`,
        [workspaceId, eventId],
      );
      return rows[0]?.status === 'succeeded' ? rows[0] : undefined;
    },
    10_000,
    `delivery ${eventId} recorded`,
  );
}

/**
 * A new workspace with a live endpoint, and a pending delivery dated `createdAt` (an SQL expression)
 * written with its job, whose payload names the week `payloadAt` (none when null); resolves the workspace
 * once its receiver has had the delivery.
 */
async function deliveredFromJob(eventId: string, createdAt: string, payloadAt: string | null) {
  const other = await webhookShop(testApp);
  const otherReceiver = await startTestReceiver();
  await other.configure(otherReceiver.url);
  await pool.query(
    `WITH d AS (
       INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, next_attempt_at, window_started_at, created_at)
       VALUES ($1, $2, 'invoice.paid', '{}', 'pending', now(), now(), ${createdAt})
       RETURNING workspace_id, event_id)
     INSERT INTO jobs (kind, workspace_id, payload, unique_key)
     SELECT 'webhooks.deliver', workspace_id, jsonb_strip_nulls(jsonb_build_object('eventId', event_id, 'at', $3::text)),
            workspace_id || '/' || event_id FROM d`,
    [other.workspaceId, eventId, payloadAt],
  );
  await waitFor(() => (otherReceiver.received.length === 1 ? true : undefined), 10_000, 'the delivery');
  expect(otherReceiver.received.map((request) => request.eventId)).toEqual([eventId]);
  return other;
}

describe('a delivery job of the release before this one', () => {
  it('names no week: its delivery is found in any, sent, and its result written to the microsecond', async () => {
    // Dated as SQL writes a time (to the microsecond, where a Date has milliseconds), with a job whose
    // payload has the event id alone, as that release queued it.
    const other = await deliveredFromJob('legacy_job', `now() - interval '1 day 0.000123 second'`, null);
    expect(await succeeded(other.workspaceId, 'legacy_job')).toEqual({ status: 'succeeded', attempts: 1 });
    const { rows: jobs } = await pool.query(`SELECT id FROM jobs WHERE unique_key = $1`, [
      `${other.workspaceId}/legacy_job`,
    ]);
    expect(jobs).toEqual([]);
  });

  it('naming a week the delivery is not in, still finds it', async () => {
    const other = await deliveredFromJob('elsewhere', 'now()', '2020-01-01T00:00:00Z');
    expect(await succeeded(other.workspaceId, 'elsewhere')).toEqual({ status: 'succeeded', attempts: 1 });
  });
});

describe('the retention of deliveries, a week at a time', () => {
  const now = new Date('2031-03-10T12:00:00Z'); // the cutoff is 2031-02-08T12:00Z

  it('drops the weeks wholly past 30 days, keeps their pending deliveries, and touches nothing newer', async () => {
    // Mondays from 2030-12-30 to 2031-03-10: eleven weeks, a delivery a day, every seventh one pending.
    await addWeeklyPartitions(
      db,
      DELIVERY_PARTITIONS,
      new Date('2031-01-01T00:00:00Z'),
      new Date('2031-03-12T00:00:00Z'),
    );
    for (let day = 0; day <= 70; day++) {
      const at = new Date(Date.UTC(2031, 0, 1 + day, 9, 30));
      await insertDelivery(db, workspaceId, delivery(`d${String(day).padStart(2, '0')}`, at));
      if (day % 7 !== 3)
        await pool.query(`UPDATE webhook_deliveries SET status = 'succeeded' WHERE event_id = $1`, [
          `d${String(day).padStart(2, '0')}`,
        ]);
    }
    const newer = await rows(`created_at >= '2031-02-03'`);
    const pendingOld = await pool.query(
      `SELECT * FROM webhook_deliveries WHERE workspace_id = $1 AND created_at < '2031-02-03' AND status = 'pending' ORDER BY event_id`,
      [workspaceId],
    );
    expect(pendingOld.rows.map((row) => row.event_id)).toEqual(['d03', 'd10', 'd17', 'd24', 'd31']);
    // What is deleted one by one: the finished deliveries and the attempts past the cutoff in no week (of
    // the tests above), never those of the weeks about to be dropped whole.
    const { rows: inNoWeek } = await pool.query(
      `SELECT (SELECT count(*) FROM webhook_deliveries_default WHERE created_at < $1 AND status <> 'pending')
            + (SELECT count(*) FROM webhook_attempts_default WHERE started_at < $1) AS n`,
      [new Date(now.getTime() - 30 * 86_400_000)],
    );

    expect(await runRetention(now)).toEqual([]);
    expect(deletedOneByOne).toBe(Number(inNoWeek[0].n));

    const names = await weeks();
    expect(names[0]).toBe('webhook_deliveries_p20310203');
    expect(names.at(-1)).toBe('webhook_deliveries_p20310317'); // the week eight days from now is made
    expect(await rows(`created_at >= '2031-02-03'`)).toEqual(newer);
    // The old weeks' finished deliveries are gone with them; their pending ones are in the DEFAULT partition, as they were.
    const kept = await pool.query(
      `SELECT * FROM webhook_deliveries WHERE workspace_id = $1 AND created_at < '2031-02-03' ORDER BY event_id`,
      [workspaceId],
    );
    expect(kept.rows).toEqual(pendingOld.rows);
    expect(await partitionOf('d03')).toEqual(['webhook_deliveries_default']);
    const [toSend] = await findDeliveriesToSend(db, [{ workspaceId, eventId: 'd03' }]);
    expect(toSend).toMatchObject({ event_id: 'd03', status: 'pending', url: receiver.url });

    // Again: nothing to do, nothing touched.
    expect(await runRetention(now)).toEqual([]);
    expect(await weeks()).toEqual(names);
    expect(await rows(`created_at >= '2031-02-03'`)).toEqual(newer);
  });

  it('leaves a week holding more than 10,000 pending deliveries, and deletes its finished ones one by one', async () => {
    // The retention gives each of them a job: no worker needs to look at them here.
    await worker.stop();
    await pool.query(
      `INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, window_started_at, created_at)
       SELECT $1, 'p' || n, 'invoice.paid', '{}', CASE WHEN n <= 10001 THEN 'pending' ELSE 'succeeded' END,
              '2031-02-04T10:00:00Z'::timestamptz + n * interval '1 second', '2031-02-04T10:00:00Z'::timestamptz + n * interval '1 second'
         FROM generate_series(1, 10003) n`,
      [workspaceId],
    );
    const { rows: finished } = await pool.query(
      `SELECT count(*)::int AS n FROM webhook_deliveries_p20310203 WHERE status <> 'pending'`,
    );
    const later = new Date('2031-03-17T12:00:00Z'); // the cutoff is 2031-02-15T12:00Z: the week of 02-03 is past it
    expect(await runRetention(later)).toEqual([
      expect.stringMatching(/^webhook retention left webhook_deliveries_p20310203 for its next run: /),
    ]);
    expect(await weeks()).toContain('webhook_deliveries_p20310203');
    // Each pending delivery's job is found by the key's index; as a join, each was compared with every job.
    const plan = await planOf(pool, (recording) => requeueOrphanedDeliveries(recording));
    expect(plan).toMatch(/Conflict Arbiter Indexes: jobs_unique_key_idx/);
    expect(plan).not.toMatch(/Join|SubPlan|on jobs j/);
    // The week's finished deliveries are deleted one by one; its pending ones wait for the endpoint.
    expect(deletedOneByOne).toBe(finished[0].n);
    const { rows: left } = await pool.query(
      `SELECT status, count(*)::int AS n FROM webhook_deliveries_p20310203 WHERE event_id LIKE 'p%' GROUP BY status`,
    );
    expect(left).toEqual([{ status: 'pending', n: 10001 }]);
    await pool.query(`DELETE FROM webhook_deliveries WHERE workspace_id = $1 AND event_id LIKE 'p%'`, [workspaceId]);
  });
});

describe('a delivery job of this release', () => {
  it('reads and writes its delivery in the delivery’s week alone', async () => {
    // The worker is stopped (above): this test claims the job itself.
    await pool.query(`DELETE FROM jobs WHERE kind = 'webhooks.deliver'`);
    await addWeeklyPartitions(
      db,
      DELIVERY_PARTITIONS,
      new Date('2030-06-03T00:00:00Z'),
      new Date('2030-06-03T00:00:00Z'),
    );
    const at = new Date('2030-06-05T08:00:00.123Z');
    await insertDeliveriesWithJobs(db, [{ ...delivery('hinted', at), workspaceId }]);
    // A connection of its own: a pooled one may hold counts of earlier statements not yet reported.
    const client = new pg.Client(testApp.database.connection);
    await client.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query(
        `SELECT payload, details FROM claim_webhook_deliveries(ARRAY['webhooks.deliver'], 'probe', 30, 10, NULL, '{}', '{}', true)
          WHERE id IS NOT NULL`,
      );
      expect(rows).toEqual([
        {
          payload: { eventId: 'hinted', at: '2030-06-05T08:00:00.123+00:00' },
          details: [
            null,
            '{}',
            0,
            'pending',
            expect.any(String),
            receiver.url,
            false, // paused (above)
            expect.any(String),
            '2030-06-05T08:00:00.123+00:00',
          ],
        },
      ]);
      // The attempt's result, as recordAttemptResults writes it, with the created_at the claim gave.
      await client.query(
        `SELECT * FROM record_webhook_attempts($1::text[], $2::text[], '{NULL}', '{1}', $3::timestamptz[], '{5}', '{200}',
                 '{NULL}', '{succeeded}', '{NULL}', '{NULL}', '{NULL}', '{NULL}', '{NULL}', $4::timestamptz[])`,
        [[workspaceId], ['hinted'], [new Date()], [rows[0].details[8]]],
      );
      // This transaction's reads of each partition of the deliveries: the week of the delivery alone.
      const { rows: read } = await client.query(
        `SELECT relname AS partition FROM pg_stat_xact_user_tables
          WHERE relname LIKE 'webhook_deliveries%' AND idx_scan + seq_scan > 0 ORDER BY 1`,
      );
      expect(read).toEqual([{ partition: 'webhook_deliveries_p20300603' }]);
      const { rows: written } = await client.query(
        `SELECT status FROM webhook_deliveries WHERE workspace_id = $1 AND event_id = 'hinted'`,
        [workspaceId],
      );
      expect(written).toEqual([{ status: 'succeeded' }]);
      await client.query('ROLLBACK');
    } finally {
      await client.end();
    }
  });
});

describe('migration 0013 on a database with deliveries', () => {
  it('keeps every delivery (the old table becomes the partition of all time before next Monday) and writes go on', async () => {
    const upgraded = await databaseBeforeMigration(testApp.database.connection, '0013');
    await upgraded.query(
      `INSERT INTO workspaces (id, name, wallet_address) VALUES ('ws_old', 'Old', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')`,
    );
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    // Old, recent, now; one dated next week by a clock ahead, which moves to its week, and one dated past
    // every week made, which moves to the DEFAULT partition.
    const dates = [daysAgo(60), daysAgo(20), new Date().toISOString(), daysAgo(-8), daysAgo(-100)];
    for (const [n, at] of dates.entries())
      await upgraded.query(
        `INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, window_started_at, created_at)
         VALUES ('ws_old', $1, 'invoice.paid', '{}', 'pending', $2, $2)`,
        [String(n + 1), at],
      );
    const old = (await upgraded.query(`SELECT * FROM webhook_deliveries ORDER BY event_id`)).rows;

    expect(await migrate(upgraded)).toContain('0013_webhook_delivery_partitions');
    expect((await upgraded.query(`SELECT relkind FROM pg_class WHERE relname = 'webhook_deliveries'`)).rows).toEqual([
      { relkind: 'p' },
    ]);
    expect((await upgraded.query(`SELECT * FROM webhook_deliveries ORDER BY event_id`)).rows).toEqual(old);
    const where = await upgraded.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM webhook_deliveries ORDER BY event_id`,
    );
    expect(where.rows.map((row) => row.partition.replace(/\d{8}$/, 'W'))).toEqual([
      'webhook_deliveries_legacy',
      'webhook_deliveries_legacy',
      'webhook_deliveries_legacy',
      'webhook_deliveries_pW',
      'webhook_deliveries_default',
    ]);
    // The old table kept its indexes but the key, which now holds the event's time.
    const indexes = await upgraded.query<{ name: string; definition: string }>(
      `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition
         FROM pg_index WHERE indrelid = 'webhook_deliveries_legacy'::regclass ORDER BY 1`,
    );
    expect(indexes.rows.map((row) => row.name)).toEqual([
      'webhook_deliveries_legacy_failed_idx',
      'webhook_deliveries_legacy_invoice_idx',
      'webhook_deliveries_legacy_pending_idx',
      'webhook_deliveries_legacy_pkey',
      'webhook_deliveries_legacy_recent_idx',
    ]);
    expect(indexes.rows[3]!.definition).toMatch(/\(workspace_id, event_id, created_at\)$/);
    // A write as this release and the one before it make it: the same event once.
    const write = `INSERT INTO webhook_deliveries (workspace_id, event_id, type, body, status, window_started_at, created_at)
                   VALUES ('ws_old', '3', 'invoice.paid', '{}', 'pending', $1, $1)
                   ON CONFLICT ON CONSTRAINT webhook_deliveries_pkey DO NOTHING`;
    expect((await upgraded.query(write, [dates[2]])).rowCount).toBe(0);
    expect((await upgraded.query(write.replaceAll("'3'", "'6'"), [dates[2]])).rowCount).toBe(1);
    // A release before the last one named no key, and cannot write here: why that one had to go first.
    await expect(
      upgraded.query(write.replace('ON CONSTRAINT webhook_deliveries_pkey', '(workspace_id, event_id)'), [dates[2]]),
    ).rejects.toThrow(/no unique or exclusion constraint/);
  });
});
