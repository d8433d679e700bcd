import { setTimeout as delay } from 'node:timers/promises';
import { sql, UpdateQueryNode, type KyselyPlugin } from 'kysely';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  enqueueJob,
  JOB_DELETED,
  JobRunner,
  RetryLater,
  type Job,
  type JobHandlers,
  type JobLogger,
  type JobRunnerOptions,
} from '../../src/jobs/index.js';
import { createTestDatabase } from '../support/database.js';
import { findJob, secondsUntilRun, waitFor } from './support.js';

const database = await createTestDatabase();
const { db } = database;
const runners: JobRunner[] = [];

async function startRunner(handlers: JobHandlers, options: Partial<JobRunnerOptions> = {}): Promise<JobRunner> {
  const runner = new JobRunner({ db, connection: database.connection, handlers, pollIntervalMs: 200, ...options });
  runners.push(runner);
  await runner.start();
  return runner;
}

beforeEach(async () => {
  await db.deleteFrom('jobs').execute();
});

afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});

describe('JobRunner', () => {
  it('accepts a pino logger', () => {
    const logger: JobLogger = pino({ level: 'silent' });
    expect(logger).toBeDefined();
  });

  it('runs a newly enqueued job when NOTIFY wakes an idle runner, long before the poll', async () => {
    const ran: unknown[] = [];
    await startRunner({ test: async (job) => void ran.push(job.payload) }, { pollIntervalMs: 60_000 });
    await enqueueJob(db, { kind: 'test', payload: { n: 1 } });
    await waitFor(() => (ran.length === 1 ? true : undefined), 5_000, 'the first job');
    // Now idle until the next notification or a minute from now.
    await delay(200);
    await enqueueJob(db, { kind: 'test', payload: { n: 2 } });
    await waitFor(() => (ran.length === 2 ? true : undefined), 5_000, 'the job woken by NOTIFY');
    expect(ran).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('still hears of new jobs after its LISTEN connection is killed', async () => {
    const ran: bigint[] = [];
    await startRunner({ test: async (job) => void ran.push(job.id) }, { pollIntervalMs: 60_000 });
    const terminated = await sql<{ pid: number }>`
      SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity
      WHERE datname = current_database() AND query = 'LISTEN jobs'`.execute(db);
    expect(terminated.rows).toHaveLength(1);
    await delay(600); // the reconnect backoff starts at 250 ms
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    await waitFor(() => (ran.includes(id) ? true : undefined), 5_000, 'the job after reconnecting');
  });

  it('runs a job scheduled for later when it falls due, not before', async () => {
    const ranAt: number[] = [];
    await startRunner({ test: async () => void ranAt.push(Date.now()) }, { pollIntervalMs: 60_000 });
    const enqueuedAt = Date.now();
    await enqueueJob(db, { kind: 'test', delaySeconds: 0.5 });
    await waitFor(() => ranAt[0], 5_000, 'the scheduled job');
    expect(ranAt[0]! - enqueuedAt).toBeGreaterThanOrEqual(450);
  });

  it('runs a scheduled job that falls due while a claim is in flight, without waiting for the poll', async () => {
    // Slow claims (and the other updates) make the interleaving certain: a wake just before the job is
    // due starts a claim that cannot take it yet, and the job falls due before the claim returns. The
    // runner once asked for the next due time only after the claim, by a later now(), which no longer
    // counted the job, and slept a minute.
    const updates = new WeakSet<object>();
    const slowUpdates: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        if (UpdateQueryNode.is(node)) updates.add(queryId);
        return node;
      },
      transformResult: async ({ queryId, result }) => {
        if (updates.has(queryId)) await delay(300);
        return result;
      },
    };
    const ranAt: number[] = [];
    await startRunner(
      { test: async () => void ranAt.push(Date.now()) },
      { db: db.withPlugin(slowUpdates), pollIntervalMs: 60_000 },
    );
    const enqueuedAt = Date.now();
    const id = (await enqueueJob(db, { kind: 'test', delaySeconds: 2 }))!;
    await waitFor(
      async () => ((await secondsUntilRun(db, id)) <= 0.2 ? true : undefined),
      5_000,
      'the job to be nearly due',
    );
    await enqueueJob(db, { kind: 'other' }); // a kind the runner ignores; its NOTIFY wakes it all the same
    await waitFor(() => ranAt[0], 3_000, 'the job that fell due during the claim');
    expect(ranAt[0]! - enqueuedAt).toBeGreaterThanOrEqual(1_950);
  });

  it('records nothing more for a handler that deleted its own job with its work', async () => {
    const warnings: string[] = [];
    const logger: JobLogger = { info() {}, warn: (_fields, message) => void warnings.push(message), error() {} };
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    let finished = false;
    await startRunner(
      {
        test: async (job) => {
          const { claim } = job;
          await db
            .deleteFrom('jobs')
            .where('id', '=', claim.id)
            .where('locked_by', '=', claim.workerId)
            .where('attempts', '=', claim.attempts)
            .execute();
          finished = true;
          return JOB_DELETED;
        },
      },
      { logger },
    );
    await waitFor(() => (finished ? true : undefined), 5_000, 'the handler');
    await delay(100);
    expect(await findJob(db, id)).toBeUndefined();
    // A runner that went on to delete the job would have found it gone, as if its lease had been lost.
    expect(warnings).toEqual([]);
  });

  it('retries a failing job with the persisted backoff until it succeeds', async () => {
    const attempts: number[] = [];
    let failedRow: Awaited<ReturnType<typeof findJob>>;
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    await startRunner(
      {
        test: async (job) => {
          attempts.push(job.attempts);
          if (job.attempts === 2) failedRow = await findJob(db, job.id);
          if (job.attempts < 3) throw new Error(`flaky ${job.attempts}`);
        },
      },
      { backoff: (n) => n * 0.1 },
    );
    await waitFor(async () => ((await findJob(db, id)) === undefined ? true : undefined), 5_000, 'the job to complete');
    expect(attempts).toEqual([1, 2, 3]);
    // What the second attempt found in the row: the first failure, recorded in the database.
    expect(failedRow).toMatchObject({ attempts: 2, last_error: 'Error: flaky 1', failed_at: null });
  });

  it('keeps a job as failed after its last attempt', async () => {
    let calls = 0;
    const id = (await enqueueJob(db, { kind: 'test', maxAttempts: 2 }))!;
    await startRunner(
      {
        test: async () => {
          calls += 1;
          throw new Error('always');
        },
      },
      { backoff: () => 0 },
    );
    const row = await waitFor(async () => {
      const found = await findJob(db, id);
      return found?.failed_at ? found : undefined;
    });
    expect(row).toMatchObject({ attempts: 2, last_error: 'Error: always', locked_by: null });
    await delay(300);
    expect(calls).toBe(2);
  });

  it('reschedules on RetryLater without spending attempts', async () => {
    const attempts: number[] = [];
    const id = (await enqueueJob(db, { kind: 'test', maxAttempts: 1 }))!;
    await startRunner({
      test: async (job) => {
        attempts.push(job.attempts);
        if (attempts.length < 3) throw new RetryLater(0.05);
      },
    });
    await waitFor(async () => ((await findJob(db, id)) === undefined ? true : undefined), 5_000, 'the job to complete');
    expect(attempts).toEqual([1, 1, 1]);
  });

  it('runs a job again at once when the signal it waits for came while it ran (`onWait` says so)', async () => {
    const runs: number[] = [];
    const told: { signal: string; since: number }[] = [];
    let signalledAt = -Infinity;
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    await startRunner(
      {
        test: async () => {
          runs.push(runs.length + 1);
          // The signal comes while the first run looks: a wake-up sent now passes the running job by.
          if (runs.length === 1) signalledAt = performance.now();
          if (runs.length < 3) throw new RetryLater(60, 'waiting for the signal', 'sig');
        },
      },
      {
        onWait: (signal, since) => {
          told.push({ signal, since });
          return signalledAt > since;
        },
      },
    );
    // Run 1 missed the signal and runs again at once; run 2 began after it, so it waits its 60 s.
    await waitFor(() => (runs.length === 2 ? true : undefined), 5_000, 'the second run');
    await waitFor(async () => ((await findJob(db, id))?.locked_by === null ? true : undefined), 5_000, 'the release');
    // Asked before run 1's release, then before and after run 2's (once a job waits, it is asked again).
    expect(told.map((entry) => entry.signal)).toEqual(['sig', 'sig', 'sig']);
    expect(told[0]!.since).toBeLessThan(signalledAt);
    expect(told.slice(1).every((entry) => entry.since > signalledAt)).toBe(true);
    expect(await findJob(db, id)).toMatchObject({ wake_on: 'sig' });
    expect(await secondsUntilRun(db, id)).toBeGreaterThan(50);
    await delay(300);
    expect(runs).toEqual([1, 2]);
  });

  it('wakes a job whose signal came while its release was on its way', async () => {
    const runs: number[] = [];
    let asked = 0;
    let signalledAt = -Infinity;
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    await startRunner(
      {
        test: async () => {
          runs.push(runs.length + 1);
          if (runs.length < 3) throw new RetryLater(60, 'waiting for the signal', 'sig');
        },
      },
      {
        // Not yet when the first run is released; the signal comes (and its wake-up passes the job by)
        // before the release is written: asked again once the job waits, the watcher says it came.
        onWait: (_signal, since) => {
          asked += 1;
          if (asked === 1) {
            signalledAt = performance.now();
            return false;
          }
          return signalledAt > since;
        },
      },
    );
    await waitFor(() => (runs.length === 2 ? true : undefined), 5_000, 'the second run');
    await waitFor(async () => ((await findJob(db, id))?.locked_by === null ? true : undefined), 5_000, 'the release');
    expect(await findJob(db, id)).toMatchObject({ wake_on: 'sig' });
    expect(await secondsUntilRun(db, id)).toBeGreaterThan(50);
    await delay(300);
    expect(runs).toEqual([1, 2]);
  });

  it('runs at most `concurrency` handlers at once', async () => {
    let active = 0;
    let peak = 0;
    let done = 0;
    await startRunner(
      {
        test: async () => {
          peak = Math.max(peak, ++active);
          await delay(20);
          active -= 1;
          done += 1;
        },
      },
      { concurrency: 3 },
    );
    await db
      .insertInto('jobs')
      .values(Array.from({ length: 12 }, () => ({ kind: 'test', payload: '{}' })))
      .execute();
    await waitFor(() => (done === 12 ? true : undefined), 5_000, 'all jobs');
    expect(peak).toBe(3);
  });

  it('fills its slots claim after claim when one claim takes fewer jobs (`maxClaim`), without waiting for the poll', async () => {
    let active = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // A claim's handlers start together, in one turn of the event loop; the next claim's after a round trip.
    const claims: number[] = [];
    let sameTurn = false;
    await db
      .insertInto('jobs')
      .values(Array.from({ length: 10 }, () => ({ kind: 'test', payload: '{}' })))
      .execute();
    // Nothing finishes until eight run at once: only claims made at once can start them within the minute's poll.
    await startRunner(
      {
        test: async () => {
          if (sameTurn) claims[claims.length - 1]! += 1;
          else {
            claims.push(1);
            sameTurn = true;
            setImmediate(() => (sameTurn = false));
          }
          if (++active === 8) release();
          await released;
        },
      },
      { concurrency: 8, maxClaim: 3, pollIntervalMs: 60_000 },
    );
    await waitFor(() => (active === 10 ? true : undefined), 5_000, 'all ten jobs');
    expect(claims.slice(0, 3)).toEqual([3, 3, 2]);
  });
  it('aborts the handler when another worker takes its lease over, and leaves the job to it', async () => {
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    let reason: unknown;
    await startRunner(
      {
        test: async (_job: Job, signal: AbortSignal) => {
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
          reason = signal.reason;
          throw signal.reason;
        },
      },
      { leaseSeconds: 0.6 },
    );
    await waitFor(async () => ((await findJob(db, id))?.locked_by ? true : undefined));
    await db
      .updateTable('jobs')
      .set((eb) => ({
        locked_by: 'thief',
        attempts: eb('attempts', '+', 1),
        locked_until: sql<Date>`now() + interval '1 minute'`,
      }))
      .where('id', '=', id)
      .execute();
    await waitFor(() => reason, 3_000, 'the abort');
    expect(String(reason)).toMatch(/lease lost/);
    await delay(100);
    expect(await findJob(db, id)).toMatchObject({ locked_by: 'thief', attempts: 2, last_error: null });
  });

  it('lets a running handler finish on stop', async () => {
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    let started = false;
    let finished = false;
    const runner = await startRunner({
      test: async () => {
        started = true;
        await delay(300);
        finished = true;
      },
    });
    await waitFor(() => (started ? true : undefined));
    await runner.stop();
    expect(finished).toBe(true);
    expect(await findJob(db, id)).toBeUndefined();
  });

  it('aborts handlers that outlast the stop timeout and returns their jobs unspent', async () => {
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    let started = false;
    const runner = await startRunner(
      {
        test: async (_job, signal) => {
          started = true;
          await new Promise((resolve) => signal.addEventListener('abort', resolve));
          throw signal.reason;
        },
      },
      { stopTimeoutMs: 100 },
    );
    await waitFor(() => (started ? true : undefined));
    await runner.stop();
    expect(await findJob(db, id)).toMatchObject({ attempts: 0, locked_by: null, locked_until: null, last_error: null });
  });

  it('hands the job of a handler that ignores the stop to a waiting worker at once, its attempt counted', async () => {
    const id = (await enqueueJob(db, { kind: 'test' }))!;
    let started = false;
    let unblock!: () => void;
    const blocked = new Promise<void>((resolve) => (unblock = resolve));
    // A lease far longer than the test: the next worker can only get the job because it was handed over.
    const stuck = await startRunner(
      {
        test: async () => {
          started = true;
          await blocked;
        },
      },
      { stopTimeoutMs: 100, leaseSeconds: 600 },
    );
    await waitFor(() => (started ? true : undefined));
    // Idle with nothing to claim, and polling too rarely to find the job by itself.
    const runs: string[] = [];
    await startRunner(
      { test: async (job) => void runs.push(`next:${job.attempts}`) },
      { workerId: 'next', pollIntervalMs: 600_000 },
    );
    await stuck.stop();
    await waitFor(async () => ((await findJob(db, id)) === undefined ? true : undefined), 10_000, 'the next worker');
    expect(runs).toEqual(['next:2']);
    unblock();
  });
});
