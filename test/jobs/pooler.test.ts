import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { enqueueJob, JobRunner, type JobLogger } from '../../src/jobs/index.js';
import { createTestDatabase } from '../support/database.js';
import { startPgBouncer } from '../support/pgbouncer.js';
import { waitFor } from './support.js';

const database = await createTestDatabase();
const server = database.connection as { host: string; port: number; user: string };
const pooler = await startPgBouncer(server, database.name);
// Every query of the runner goes through the pooler: claims, leases, completions.
const pooled = openDatabase({ connectionString: pooler.url });
afterAll(async () => {
  await pooled.close();
  await pooler.stop();
});
const runners: JobRunner[] = [];
afterEach(async () => {
  await Promise.all(runners.splice(0).map((runner) => runner.stop()));
});

/** A runner on the pooled database whose LISTEN connection goes to `listenTo`; its warnings are kept. */
async function startRunner(
  listenTo: { connectionString: string },
  pollIntervalMs: number,
  ran: unknown[],
  warnings: string[],
) {
  const logger: JobLogger = { info() {}, warn: (_fields, message) => void warnings.push(message), error() {} };
  const runner = new JobRunner({
    db: pooled.db,
    connection: listenTo,
    handlers: { test: async (job) => void ran.push(job.payload) },
    pollIntervalMs,
    logger,
  });
  runners.push(runner);
  await runner.start();
  return runner;
}

describe('job runners behind a transaction pooler', () => {
  it('say that notifications do not arrive through the pooler, and find new jobs by polling', async () => {
    const ran: unknown[] = [];
    const warnings: string[] = [];
    await startRunner({ connectionString: pooler.url }, 1_000, ran, warnings);
    expect(warnings).toEqual([expect.stringContaining('Set DATABASE_DIRECT_URL')]);
    await enqueueJob(database.db, { kind: 'test', payload: { n: 1 } });
    await waitFor(() => (ran.length === 1 ? true : undefined), 10_000, 'the job found by polling');
    expect(ran).toEqual([{ n: 1 }]);
  });

  it('are woken by notifications when they listen on a direct connection', async () => {
    const ran: unknown[] = [];
    const warnings: string[] = [];
    // Its poll is a minute away: only a notification brings the job within the wait below.
    await startRunner({ connectionString: database.url }, 60_000, ran, warnings);
    expect(warnings).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await enqueueJob(database.db, { kind: 'test', payload: { n: 2 } });
    await waitFor(() => (ran.length === 1 ? true : undefined), 10_000, 'the job woken by NOTIFY');
    expect(ran).toEqual([{ n: 2 }]);
  });
});
