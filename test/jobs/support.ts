import { setTimeout as delay } from 'node:timers/promises';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { JobRow } from '../../src/jobs/job.repo.js';

/** Polls `probe` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function waitFor<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(20);
  }
}

export async function findJob(db: Db, id: bigint): Promise<JobRow | undefined> {
  return db.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Makes a scheduled job due now, as if its time had come. */
export async function makeDue(db: Db, id: bigint): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ run_at: sql<Date>`now()` })
    .where('id', '=', id)
    .execute();
}

/** Seconds from the database's now() to `run_at`. */
export async function secondsUntilRun(db: Db, id: bigint): Promise<number> {
  const row = await db
    .selectFrom('jobs')
    .select(sql<number>`extract(epoch from run_at - now())::float8`.as('seconds'))
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return row.seconds;
}
