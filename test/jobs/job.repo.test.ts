import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { claimJobs } from '../../src/jobs/claim.js';
import {
  completeJobs,
  enqueueJob,
  extendLease,
  failAbandonedJobs,
  failJob,
  releaseJob,
  wakeJobs,
  JOBS_CHANNEL,
  type JobRow,
} from '../../src/jobs/job.repo.js';
import type { JobClaim } from '../../src/jobs/job.js';
import { newWorkspaceId } from '../../src/shared/ids.js';
import { createTestDatabase } from '../support/database.js';
import { findJob, makeDue, secondsUntilRun } from './support.js';

const database = await createTestDatabase();
const { db } = database;

/** One claim's completion, as a finishing handler's goes out when it finishes alone. */
async function completeJob(executor: typeof db, claim: JobClaim): Promise<boolean> {
  const [completed] = await completeJobs(executor, [claim]);
  return completed!;
}

function claimOf(row: JobRow): JobClaim {
  return { id: row.id, workerId: row.locked_by ?? '', attempts: row.attempts };
}

async function claimOne(workerId = 'w1', leaseSeconds = 30): Promise<JobRow | undefined> {
  const {
    rows: [row],
  } = await claimJobs(db, { workerId, kinds: ['test'], limit: 1, leaseSeconds });
  return row;
}

beforeEach(async () => {
  await db.deleteFrom('jobs').execute();
});

describe('enqueueJob', () => {
  it('stores kind, workspace, payload and max attempts', async () => {
    const workspaceId = newWorkspaceId();
    const id = await enqueueJob(db, { kind: 'test', workspaceId, payload: { invoice: 'inv_1', n: 2 }, maxAttempts: 3 });
    const row = await findJob(db, id!);
    expect(row).toMatchObject({
      kind: 'test',
      workspace_id: workspaceId,
      payload: { invoice: 'inv_1', n: 2 },
      max_attempts: 3,
      attempts: 0,
    });
  });

  it('dedupes a pending job with the same kind and unique key, not one of another kind', async () => {
    const first = await enqueueJob(db, { kind: 'test', uniqueKey: 'inv_1' });
    const again = await enqueueJob(db, { kind: 'test', uniqueKey: 'inv_1' });
    const otherKind = await enqueueJob(db, { kind: 'other', uniqueKey: 'inv_1' });
    expect(first).toBeTypeOf('bigint');
    expect(again).toBeUndefined();
    expect(otherKind).toBeTypeOf('bigint');
    expect(await db.selectFrom('jobs').select('id').where('kind', '=', 'test').execute()).toHaveLength(1);
  });

  it('accepts the unique key again once the job with it has failed for good', async () => {
    await enqueueJob(db, { kind: 'test', uniqueKey: 'inv_1', maxAttempts: 1 });
    const row = (await claimOne())!;
    expect(await failJob(db, claimOf(row), 'boom', 0)).toBe('failed');
    expect(await enqueueJob(db, { kind: 'test', uniqueKey: 'inv_1' })).toBeTypeOf('bigint');
  });

  it('commits with the caller transaction and vanishes with its rollback', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await enqueueJob(trx, { kind: 'test', payload: { n: 1 } });
        throw new Error('use case failed');
      }),
    ).rejects.toThrow('use case failed');
    expect(await db.selectFrom('jobs').selectAll().execute()).toHaveLength(0);
    await db.transaction().execute((trx) => enqueueJob(trx, { kind: 'test', payload: { n: 2 } }));
    expect(await db.selectFrom('jobs').selectAll().execute()).toHaveLength(1);
  });

  it('schedules by delay on the database clock', async () => {
    const id = (await enqueueJob(db, { kind: 'test', delaySeconds: 60 }))!;
    expect(await secondsUntilRun(db, id)).toBeGreaterThan(58);
    const claimed = await claimJobs(db, { workerId: 'w1', kinds: ['test'], limit: 1, leaseSeconds: 30 });
    expect(claimed.rows).toEqual([]);
    expect(claimed.nextDueSeconds).toBeGreaterThan(58);
    expect(claimed.nextDueSeconds).toBeLessThanOrEqual(60);
    expect(
      (await claimJobs(db, { workerId: 'w1', kinds: ['other'], limit: 1, leaseSeconds: 30 })).nextDueSeconds,
    ).toBeNull();
  });
});

describe('claimJobs', () => {
  it('leases due jobs oldest first and counts the attempt', async () => {
    const a = await enqueueJob(db, { kind: 'test', runAt: new Date(Date.now() - 2000) });
    const b = await enqueueJob(db, { kind: 'test', runAt: new Date(Date.now() - 1000) });
    await enqueueJob(db, { kind: 'other' });
    const { rows } = await claimJobs(db, { workerId: 'w1', kinds: ['test'], limit: 10, leaseSeconds: 30 });
    expect(rows.map((row) => row.id)).toEqual([a, b]);
    expect(rows.every((row) => row.attempts === 1 && row.locked_by === 'w1' && row.locked_until !== null)).toBe(true);
  });

  it('gives each job to one of many concurrent claimers', async () => {
    await db
      .insertInto('jobs')
      .values(Array.from({ length: 60 }, () => ({ kind: 'test', payload: '{}' })))
      .execute();
    const batches = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        claimJobs(db, { workerId: `w${i}`, kinds: ['test'], limit: 10, leaseSeconds: 30 }),
      ),
    );
    const ids = batches.flatMap((batch) => batch.rows).map((row) => row.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(60);
  });

  it('does not claim a leased job until its lease expires', async () => {
    await enqueueJob(db, { kind: 'test' });
    const first = (await claimOne('w1', 0.3))!;
    expect(await claimOne('w2')).toBeUndefined();
    await delay(400);
    const second = (await claimOne('w2'))!;
    expect(second).toMatchObject({ id: first.id, attempts: 2, locked_by: 'w2' });
    // The first worker's claim is fenced off: it can neither extend, complete nor fail the new run.
    expect(await extendLease(db, claimOf(first), 30)).toBe(false);
    expect(await completeJob(db, claimOf(first))).toBe(false);
    expect(await failJob(db, claimOf(first), 'late', 0)).toBe('lost');
    expect(await completeJob(db, claimOf(second))).toBe(true);
    expect(await findJob(db, first.id)).toBeUndefined();
  });

  it('claims nothing for no kinds', async () => {
    await enqueueJob(db, { kind: 'test' });
    expect(await claimJobs(db, { workerId: 'w1', kinds: [], limit: 5, leaseSeconds: 30 })).toEqual({
      rows: [],
      nextDueSeconds: null,
      passedOver: 0,
      othersFound: 0,
    });
  });

  it('tells when the next job falls due while claiming the due ones', async () => {
    const due = await enqueueJob(db, { kind: 'test' });
    await enqueueJob(db, { kind: 'test', delaySeconds: 30 });
    await enqueueJob(db, { kind: 'test', delaySeconds: 90 });
    const { rows, nextDueSeconds } = await claimJobs(db, {
      workerId: 'w1',
      kinds: ['test'],
      limit: 5,
      leaseSeconds: 30,
    });
    expect(rows.map((row) => row.id)).toEqual([due]);
    expect(nextDueSeconds).toBeGreaterThan(28);
    expect(nextDueSeconds).toBeLessThanOrEqual(30);
  });

  it('skips a workspace at its limit and takes no more than its room from one below it', async () => {
    const [full, partial, idle] = [newWorkspaceId(), newWorkspaceId(), newWorkspaceId()];
    const old = new Date(Date.now() - 60_000);
    // The workspace at its limit has the oldest jobs: a claim that did not skip it would take those.
    for (const workspaceId of [full, full, full, partial, partial, partial, idle, idle, idle])
      await enqueueJob(db, { kind: 'test', workspaceId, runAt: old });
    await enqueueJob(db, { kind: 'test' });
    const running = new Map([
      [full, 2],
      [partial, 1],
    ]);
    const { rows, passedOver } = await claimJobs(db, {
      workerId: 'w1',
      kinds: ['test'],
      limit: 10,
      leaseSeconds: 30,
      perWorkspace: { limit: 2, running },
    });
    const count = (workspaceId: string | null) => rows.filter((row) => row.workspace_id === workspaceId).length;
    expect([count(full), count(partial), count(idle), count(null)]).toEqual([0, 1, 2, 1]);
    // Nothing was taken from under it by another claimer, and only the jobs claimed were locked.
    expect(passedOver).toBe(0);
    const locked = await db.selectFrom('jobs').select('id').where('locked_by', 'is not', null).execute();
    expect(locked).toHaveLength(4);
    expect(await claimJobs(db, { workerId: 'w2', kinds: ['test'], limit: 10, leaseSeconds: 30 })).toMatchObject({
      othersFound: 6,
    });
  });

  it('fills only the room of the workspaces running when told not to look for others', async () => {
    const [running, other] = [newWorkspaceId(), newWorkspaceId()];
    for (const workspaceId of [other, running, running, running]) await enqueueJob(db, { kind: 'test', workspaceId });
    const claimed = await claimJobs(db, {
      workerId: 'w1',
      kinds: ['test'],
      limit: 10,
      leaseSeconds: 30,
      perWorkspace: { limit: 3, running: new Map([[running, 1]]), others: false },
    });
    expect(claimed.rows.map((row) => row.workspace_id)).toEqual([running, running]);
    expect(claimed.othersFound).toBe(0);
  });
});

describe('completeJobs', () => {
  it('deletes the jobs of the claims still held and answers each claim', async () => {
    for (let i = 0; i < 3; i++) await enqueueJob(db, { kind: 'test' });
    const { rows } = await claimJobs(db, { workerId: 'w1', kinds: ['test'], limit: 3, leaseSeconds: 30 });
    const [a, b, c] = rows.map(claimOf);
    const stale = { ...b!, attempts: b!.attempts + 1 };
    expect(await completeJobs(db, [a!, stale, c!])).toEqual([true, false, true]);
    expect(await db.selectFrom('jobs').select('id').execute()).toEqual([{ id: b!.id }]);
    expect(await completeJobs(db, [])).toEqual([]);
  });
});

describe('claims and completions do not wait for the disk flush', () => {
  // Their commit alone: a setting that outlived the statement's transaction would make every later
  // commit on that pooled connection (a payment's, an event's) return before it is on disk.
  it('turns synchronous_commit off for their own transaction, never for the session', async () => {
    await enqueueJob(db, { kind: 'test' });
    const settings = await db.connection().execute(async (connection) => {
      const show = async () =>
        (await sql<{ synchronous_commit: string }>`SHOW synchronous_commit`.execute(connection)).rows[0]!
          .synchronous_commit;
      // The test cluster runs with it off; this session as a production one.
      await sql`SET synchronous_commit = on`.execute(connection);
      await sql`BEGIN`.execute(connection);
      const { rows } = await claimJobs(connection, { workerId: 'w1', kinds: ['test'], limit: 1, leaseSeconds: 30 });
      const inClaim = await show();
      await sql`COMMIT`.execute(connection);
      await sql`BEGIN`.execute(connection);
      const completed = await completeJobs(connection, [claimOf(rows[0]!)]);
      const inCompletion = await show();
      await sql`COMMIT`.execute(connection);
      await enqueueJob(connection, { kind: 'test' });
      const claimedAlone = await claimJobs(connection, { workerId: 'w1', kinds: ['test'], limit: 1, leaseSeconds: 30 });
      await completeJobs(connection, [claimOf(claimedAlone.rows[0]!)]);
      return { inClaim, completed, inCompletion, after: await show() };
    });
    expect(settings).toEqual({ inClaim: 'off', completed: [true], inCompletion: 'off', after: 'on' });
  });
});

describe('failJob', () => {
  it('persists the attempt, the error and the backoff, then fails for good on the last attempt', async () => {
    const id = (await enqueueJob(db, { kind: 'test', maxAttempts: 2 }))!;
    const first = (await claimOne())!;
    expect(await failJob(db, claimOf(first), 'Error: timeout', 60)).toBe('retrying');
    const retrying = (await findJob(db, id))!;
    expect(retrying).toMatchObject({
      attempts: 1,
      locked_by: null,
      locked_until: null,
      last_error: 'Error: timeout',
      failed_at: null,
    });
    expect(await secondsUntilRun(db, id)).toBeGreaterThan(58);
    expect(await claimOne()).toBeUndefined();

    await makeDue(db, id);
    const second = (await claimOne())!;
    expect(second.attempts).toBe(2);
    expect(await failJob(db, claimOf(second), 'x'.repeat(10_000), 60)).toBe('failed');
    const failed = (await findJob(db, id))!;
    expect(failed.failed_at).toBeInstanceOf(Date);
    expect(failed.last_error).toHaveLength(2000);
    await makeDue(db, id);
    expect(await claimOne()).toBeUndefined();
  });
});

describe('releaseJob', () => {
  it('gives the job back without spending its attempt', async () => {
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    const row = (await claimOne())!;
    expect(await releaseJob(db, claimOf(row), 0)).toBe(true);
    expect(await findJob(db, id)).toMatchObject({ attempts: 0, locked_by: null, locked_until: null });
    expect((await claimOne())?.attempts).toBe(1);
  });
});

describe('failAbandonedJobs', () => {
  it('fails a job whose worker died on its last attempt once the lease lapsed', async () => {
    const id = (await enqueueJob(db, { kind: 'test', maxAttempts: 1, uniqueKey: 'k' }))!;
    await claimOne('dead', 0.2);
    expect(await failAbandonedJobs(db, ['test'])).toBe(0);
    await delay(300);
    expect(await claimOne()).toBeUndefined();
    expect(await failAbandonedJobs(db, ['test'])).toBe(1);
    expect((await findJob(db, id))?.failed_at).toBeInstanceOf(Date);
    expect(await enqueueJob(db, { kind: 'test', uniqueKey: 'k' })).toBeTypeOf('bigint');
  });
});

describe('wakeJobs', () => {
  it('makes the jobs waiting for the signal due and wakes the runners, only when it woke one', async () => {
    const listener = new pg.Client(database.connection);
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (message) => heard.push(message.channel));
    await listener.query(`LISTEN ${JOBS_CHANNEL}`);
    try {
      await enqueueJob(db, { kind: 'test' });
      await enqueueJob(db, { kind: 'test' });
      const [waiting, running] = [await claimOne('w1'), await claimOne('w2')];
      expect(await releaseJob(db, claimOf(waiting!), 600, 'new_block')).toBe(true);
      await delay(50);
      heard.length = 0;

      expect(await wakeJobs(db, 'other_signal')).toBe(0);
      // The one being run is left alone: its handler gives it back with a fresh wait.
      await sql`UPDATE jobs SET wake_on = 'new_block' WHERE id = ${running!.id}`.execute(db);
      expect(await wakeJobs(db, 'new_block')).toBe(1);
      await expect.poll(() => heard).toEqual([JOBS_CHANNEL]);

      expect(await secondsUntilRun(db, waiting!.id)).toBeLessThanOrEqual(0);
      expect((await findJob(db, waiting!.id))?.wake_on).toBeNull();
      expect((await findJob(db, running!.id))?.wake_on).toBe('new_block');
      expect(await wakeJobs(db, 'new_block')).toBe(0);
      await delay(50);
      expect(heard).toEqual([JOBS_CHANNEL]);
    } finally {
      await listener.end();
    }
  });
});
