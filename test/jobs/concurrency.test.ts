import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { enqueueJob, JobRunner, type JobHandler } from '../../src/jobs/index.js';
import { createTestDatabase } from '../support/database.js';
import { waitFor } from './support.js';

const database = await createTestDatabase();
const { db } = database;

interface Run {
  readonly jobId: bigint;
  readonly runner: number;
  readonly start: number;
  end?: number;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await db.deleteFrom('jobs').execute();
});

/** `count` runners, each with its own pool as separate processes would have, all sharing `runs`. */
async function startRunners(
  count: number,
  runs: Run[],
  work: (signal: AbortSignal) => Promise<void>,
  options: { concurrency: number; leaseSeconds: number },
) {
  for (let index = 0; index < count; index += 1) {
    const handle: DatabaseHandle = openDatabase(database.connection);
    const handler: JobHandler = async (job, signal) => {
      const run: Run = { jobId: job.id, runner: index, start: performance.now() };
      runs.push(run);
      try {
        await work(signal);
      } finally {
        run.end = performance.now();
      }
    };
    const runner = new JobRunner({
      db: handle.db,
      connection: database.connection,
      handlers: { test: handler },
      pollIntervalMs: 200,
      ...options,
    });
    await runner.start();
    cleanups.push(
      () => handle.close(),
      () => runner.stop(),
    );
  }
}

function overlapping(runs: readonly Run[]): Run[][] {
  const byJob = new Map<bigint, Run[]>();
  for (const run of runs) byJob.set(run.jobId, [...(byJob.get(run.jobId) ?? []), run]);
  return [...byJob.values()].filter((list) =>
    list.some((a, i) => list.some((b, j) => i !== j && a.start < (b.end ?? Infinity) && b.start < (a.end ?? Infinity))),
  );
}

function peakPerRunner(runs: readonly Run[], runner: number): number {
  const edges = runs
    .filter((run) => run.runner === runner)
    .flatMap((run) => [[run.start, 1] as const, [run.end ?? Infinity, -1] as const]);
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let active = 0;
  let peak = 0;
  for (const [, step] of edges) peak = Math.max(peak, (active += step));
  return peak;
}

describe('several runners on one queue', () => {
  it('runs each of 200 jobs exactly once, never two runs of a job at the same time', async () => {
    const runs: Run[] = [];
    await startRunners(3, runs, () => delay(Math.random() * 5), { concurrency: 4, leaseSeconds: 30 });
    // One transaction: a single NOTIFY at commit wakes all runners at once, so they race for the rows.
    const ids = await db.transaction().execute(async (trx) => {
      const created: bigint[] = [];
      for (let n = 0; n < 200; n += 1) created.push((await enqueueJob(trx, { kind: 'test', payload: { n } }))!);
      return created;
    });
    await waitFor(
      async () => {
        const left = await db.selectFrom('jobs').select('id').execute();
        return left.length === 0 && runs.every((run) => run.end !== undefined) ? true : undefined;
      },
      20_000,
      'all jobs to complete',
    );

    expect(runs.map((run) => run.jobId).sort((a, b) => Number(a - b))).toEqual(ids);
    expect(overlapping(runs)).toEqual([]);
    for (const runner of [0, 1, 2]) expect(peakPerRunner(runs, runner)).toBeLessThanOrEqual(4);
  });

  it('keeps the lease of a handler that outlives it, so no other runner starts the job', async () => {
    const runs: Run[] = [];
    // Each handler runs 2.5 leases: without heartbeats every job would be claimed again mid-run.
    await startRunners(2, runs, () => delay(1_500), { concurrency: 2, leaseSeconds: 0.6 });
    await db.transaction().execute(async (trx) => {
      for (let n = 0; n < 3; n += 1) await enqueueJob(trx, { kind: 'test', payload: { n } });
    });
    await waitFor(
      async () => {
        const left = await db.selectFrom('jobs').select('id').execute();
        return left.length === 0 ? true : undefined;
      },
      10_000,
      'all jobs to complete',
    );

    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((run) => run.jobId)).size).toBe(3);
    expect(overlapping(runs)).toEqual([]);
  });
});
