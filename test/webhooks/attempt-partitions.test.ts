import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/jobs/index.js';
import { migrate } from '../../src/db/migrate.js';
import { addWeeklyPartitions, dropPartitionsBefore, partitionsOf } from '../../src/db/partitions.js';
import { webhookRetentionHandler } from '../../src/modules/webhooks/webhook.jobs.js';
import { ATTEMPT_PARTITIONS } from '../../src/modules/webhooks/webhook.repo.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp, merchant } from '../support/app.js';
import { databaseBeforeMigration } from '../support/database.js';

const clock = new ManualClock();
const { app, database } = await createTestApp({}, clock);
const { db, pool } = database;
const shop = await merchant(app, ['invoices:read']);
clock.set(new Date('2031-03-10T12:00:00Z'));

async function insertAttempt(startedAt: string): Promise<void> {
  await pool.query(
    `INSERT INTO webhook_attempts (workspace_id, event_id, attempt, started_at, duration_ms, status_code)
     VALUES ($1, 'evt_1', 1, $2, 12, 200)`,
    [shop.workspaceId, startedAt],
  );
}

/** Every attempt row with where it lives and its physical identity: a row rewritten or moved differs. */
async function rows(where = 'true'): Promise<string[]> {
  const { rows } = await pool.query<{ row: string }>(
    `SELECT tableoid::regclass || ' ' || ctid || ' ' || xmin || ' ' || started_at AS row
       FROM webhook_attempts WHERE ${where} ORDER BY started_at`,
  );
  return rows.map((row) => row.row);
}

/** Runs the hourly job once; resolves the warnings it wrote to the operator's log. */
async function runRetention(): Promise<string[]> {
  const warnings: string[] = [];
  const log = { info: () => {}, warn: (_fields: object, line: string) => void warnings.push(line) };
  // The job reschedules itself an hour later by throwing RetryLater.
  await expect(webhookRetentionHandler(db, clock, log)({} as Job, new AbortController().signal)).rejects.toThrow(
    /next webhook history retention/,
  );
  return warnings;
}

const weeklyNames = async () =>
  (await partitionsOf(db, 'webhook_attempts')).filter((partition) => partition.week).map((partition) => partition.name);

describe('the webhook attempt history, a partition a week', () => {
  it('retention drops the weeks wholly past 30 days and touches nothing newer', async () => {
    // Mondays from 2030-12-30 to 2031-03-10: eleven weeks.
    const made = await addWeeklyPartitions(
      db,
      ATTEMPT_PARTITIONS,
      new Date('2031-01-01T00:00:00Z'),
      new Date('2031-03-12T00:00:00Z'),
    );
    expect(made).toHaveLength(11);
    for (let day = 0; day <= 70; day++) await insertAttempt(new Date(Date.UTC(2031, 0, 1 + day, 9, 30)).toISOString()); // Jan 1 … Mar 12
    await insertAttempt('2020-01-01T00:00:00Z'); // in no week's partition: the DEFAULT one
    await insertAttempt('2031-09-01T00:00:00Z'); // dated ahead of every partition: DEFAULT too

    // The cutoff is 2031-02-08T12:00Z: the weeks up to Monday 2031-01-27 end before it, that of 02-03 does not.
    const newer = await rows(`started_at >= '2031-02-03'`);
    await runRetention();

    const names = await weeklyNames();
    expect(names[0]).toBe('webhook_attempts_p20310203');
    expect(names.at(-1)).toBe('webhook_attempts_p20310317'); // the week eight days from now is made
    expect(names).toHaveLength(7);
    expect(await rows(`started_at >= '2031-02-03'`)).toEqual(newer);
    expect(await rows(`started_at < '2031-02-03'`)).toEqual([]);
    const inDefault = await pool.query(`SELECT started_at FROM webhook_attempts_default`);
    expect(inDefault.rows).toEqual([{ started_at: new Date('2031-09-01T00:00:00Z') }]);

    // Again: nothing to do, nothing touched.
    await runRetention();
    expect(await weeklyNames()).toEqual(names);
    expect(await rows(`started_at >= '2031-02-03'`)).toEqual(newer);
  });

  it('moves the few rows of a week dated ahead from the DEFAULT partition into the week once it is made', async () => {
    const before = await pool.query(`SELECT id, started_at FROM webhook_attempts WHERE started_at >= '2031-09-01'`);
    expect(
      await addWeeklyPartitions(
        db,
        ATTEMPT_PARTITIONS,
        new Date('2031-09-01T00:00:00Z'),
        new Date('2031-09-10T00:00:00Z'),
      ),
    ).toEqual(['webhook_attempts_p20310901', 'webhook_attempts_p20310908']);
    expect(await rows(`started_at >= '2031-09-01'`)).toEqual([expect.stringMatching(/^webhook_attempts_p20310901 /)]);
    expect(
      (await pool.query(`SELECT id, started_at FROM webhook_attempts WHERE started_at >= '2031-09-01'`)).rows,
    ).toEqual(before.rows);
    const left = await pool.query(
      `SELECT count(*)::int AS n FROM webhook_attempts_default WHERE started_at >= '2031-09-01'`,
    );
    expect(left.rows).toEqual([{ n: 0 }]);
  });

  it('leaves a week in the DEFAULT partition when more than 10,000 of its rows are there: they are pruned one by one', async () => {
    await pool.query(
      `INSERT INTO webhook_attempts (workspace_id, event_id, attempt, started_at, duration_ms, status_code)
       SELECT $1, 'evt_' || n, 1, '2031-10-06T10:00:00Z'::timestamptz + n * interval '1 second', 12, 200
         FROM generate_series(1, 10001) n`,
      [shop.workspaceId],
    );
    expect(
      await addWeeklyPartitions(db, ATTEMPT_PARTITIONS, new Date('2031-10-06T00:00:00Z'), new Date('2031-10-13')),
    ).toEqual(['webhook_attempts_p20311013']);
    const { rows: inDefault } = await pool.query(
      `SELECT count(*)::int AS n FROM webhook_attempts_default WHERE started_at >= '2031-10-06'`,
    );
    expect(inDefault).toEqual([{ n: 10001 }]);
  });

  it('waits at most a second for a reader of the table, and drops the partition on the next run', async () => {
    clock.set(new Date('2031-03-17T12:00:00Z'));
    const reader = new pg.Client(database.connection);
    await reader.connect();
    try {
      await reader.query('BEGIN');
      await reader.query(`SELECT count(*) FROM webhook_attempts WHERE started_at >= '2031-02-03'`);
      const started = Date.now();
      const cutoff = new Date('2031-02-10T12:00:00Z');
      expect(await dropPartitionsBefore(db, ATTEMPT_PARTITIONS, cutoff)).toEqual([]);
      expect(Date.now() - started).toBeLessThan(10_000);
      // The hourly job says what it had to leave.
      expect(await runRetention()).toEqual([
        expect.stringMatching(/^webhook retention left webhook_attempts_p20310203 for its next run: /),
      ]);
      await reader.query('COMMIT');
      expect(await dropPartitionsBefore(db, ATTEMPT_PARTITIONS, cutoff)).toEqual(['webhook_attempts_p20310203']);
    } finally {
      await reader.end();
    }
  });
});

describe('migration 0011 on a database with attempts', () => {
  it('keeps every attempt (the old table becomes the DEFAULT partition) and ids go on from where they were', async () => {
    const upgraded = await databaseBeforeMigration(database.connection, '0011');
    await upgraded.query(
      `INSERT INTO workspaces (id, name, wallet_address) VALUES ('ws_old', 'Old', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')`,
    );
    // Two weeks and more ago (before this week's Monday, whatever today is), and now.
    const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    // …and one dated next week by a clock ahead, which moves to its week.
    for (const at of [daysAgo(60), daysAgo(20), new Date().toISOString(), daysAgo(-8)])
      await upgraded.query(
        `INSERT INTO webhook_attempts (workspace_id, event_id, attempt, started_at, duration_ms) VALUES ('ws_old', 'evt_1', 1, $1, 5)`,
        [at],
      );
    const old = (await upgraded.query(`SELECT id, started_at FROM webhook_attempts ORDER BY id`)).rows;

    expect(await migrate(upgraded)).toContain('0011_webhook_attempt_partitions');
    expect((await upgraded.query(`SELECT relkind FROM pg_class WHERE relname = 'webhook_attempts'`)).rows).toEqual([
      { relkind: 'p' },
    ]);
    expect((await upgraded.query(`SELECT id, started_at FROM webhook_attempts ORDER BY id`)).rows).toEqual(old);
    // The old attempts stay in the DEFAULT partition (weeks begin next Monday); the one dated ahead moves to its week.
    const week = 7 * 86_400_000;
    const mondayOf = (at: number) =>
      new Date(Math.floor((at - 4 * 86_400_000) / week) * week + 4 * 86_400_000)
        .toISOString()
        .slice(0, 10)
        .replaceAll('-', '');
    const nextMonday = mondayOf(Date.now() + week);
    const where = await upgraded.query<{ partition: string }>(
      `SELECT tableoid::regclass::text AS partition FROM webhook_attempts ORDER BY id`,
    );
    expect(where.rows.map((row) => row.partition)).toEqual([
      'webhook_attempts_default',
      'webhook_attempts_default',
      'webhook_attempts_default',
      `webhook_attempts_p${mondayOf(Date.now() + 8 * 86_400_000)}`,
    ]);
    const days = await upgraded.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'webhook_attempts'::regclass AND c.relname LIKE 'webhook_attempts_p%' ORDER BY 1`,
    );
    expect(days.rows).toHaveLength(7);
    expect(days.rows[0]!.name).toBe(`webhook_attempts_p${nextMonday}`);
    await upgraded.query(
      `INSERT INTO webhook_attempts (workspace_id, event_id, attempt, started_at, duration_ms) VALUES ('ws_old', 'evt_2', 1, now(), 5)`,
    );
    const { rows } = await upgraded.query<{ id: string }>(
      `SELECT id::text FROM webhook_attempts ORDER BY id DESC LIMIT 1`,
    );
    expect(BigInt(rows[0]!.id)).toBeGreaterThan(BigInt(old.at(-1).id));
  });
});
