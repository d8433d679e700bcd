import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { enqueueJob, JobRunner } from '../../src/jobs/index.js';
import { createTestDatabase } from '../support/database.js';
import { findJob, waitFor } from './support.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./fixtures/worker-process.ts', import.meta.url));

const database = await createTestDatabase();
const { db } = database;
await sql`CREATE TABLE job_events (
  job_id bigint NOT NULL, worker text NOT NULL, event text NOT NULL, attempts integer NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
)`.execute(db);

interface JobEvent {
  worker: string;
  event: string;
  attempts: number;
  at: Date;
}

let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('a worker killed mid-job', () => {
  it("completes the killed worker's job after its lease expires, exactly once", async () => {
    const id = (await enqueueJob(db, { kind: 'crash.hang' }))!;
    child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
      cwd: ROOT,
      env: { ...process.env, JOB_TEST_CONNECTION: JSON.stringify(database.connection), JOB_TEST_WORKER_ID: 'doomed' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child!.once('exit', (_code, signal) => resolve(signal)),
    );
    await waitFor(
      async () => {
        const { rows } = await sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM job_events WHERE worker = 'doomed'`.execute(db);
        return rows[0]!.n > 0 ? true : undefined;
      },
      20_000,
      'the child worker to start the job',
    );
    expect(await findJob(db, id)).toMatchObject({ locked_by: 'doomed', attempts: 1 });

    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    // The dead worker's last lease; a heartbeat still in flight could only have moved it later.
    const leaseEnd = (await findJob(db, id))!.locked_until!;

    const survivor = new JobRunner({
      db,
      connection: database.connection,
      workerId: 'survivor',
      pollIntervalMs: 200,
      handlers: {
        'crash.hang': async (job) => {
          await sql`INSERT INTO job_events (job_id, worker, event, attempts) VALUES (${job.id}, 'survivor', 'started', ${job.attempts})`.execute(
            db,
          );
          await sql`INSERT INTO job_events (job_id, worker, event, attempts) VALUES (${job.id}, 'survivor', 'completed', ${job.attempts})`.execute(
            db,
          );
        },
      },
    });
    await survivor.start();
    try {
      await waitFor(
        async () => ((await findJob(db, id)) === undefined ? true : undefined),
        10_000,
        'the job to complete',
      );
    } finally {
      await survivor.stop();
    }

    const { rows } =
      await sql<JobEvent>`SELECT worker, event, attempts, at FROM job_events WHERE job_id = ${id} ORDER BY at`.execute(
        db,
      );
    expect(rows.map(({ worker, event, attempts }) => ({ worker, event, attempts }))).toEqual([
      { worker: 'doomed', event: 'started', attempts: 1 },
      { worker: 'survivor', event: 'started', attempts: 2 },
      { worker: 'survivor', event: 'completed', attempts: 2 },
    ]);
    expect(rows[1]!.at.getTime()).toBeGreaterThanOrEqual(leaseEnd.getTime());
  });
});
