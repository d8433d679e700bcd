import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';

/**
 * Counts one hit in one statement and answers the count of the current window. A window that has ended
 * is restarted by the same statement, so any number of processes count the same window exactly.
 */
export function countHit(db: Executor, bucket: string, subject: string, windowSeconds: number) {
  return db
    .insertInto('rate_limit_counters')
    .values({ bucket, subject, hits: 1, window_ends: sql<Date>`now() + make_interval(secs => ${windowSeconds})` })
    .onConflict((conflict) =>
      conflict.columns(['bucket', 'subject']).doUpdateSet({
        hits: sql<number>`CASE WHEN rate_limit_counters.window_ends <= now() THEN 1 ELSE rate_limit_counters.hits + 1 END`,
        window_ends: sql<Date>`CASE WHEN rate_limit_counters.window_ends <= now() THEN excluded.window_ends ELSE rate_limit_counters.window_ends END`,
      }),
    )
    .returning(['hits', 'window_ends', sql<Date>`now()`.as('now')])
    .executeTakeFirstOrThrow();
}

/** The subject's count in its current window; undefined when it has none (or it has ended). */
export function findLiveCounter(db: Executor, bucket: string, subject: string) {
  return db
    .selectFrom('rate_limit_counters')
    .select(['hits', 'window_ends', sql<Date>`now()`.as('now')])
    .where('bucket', '=', bucket)
    .where('subject', '=', subject)
    .where('window_ends', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

/** Counters whose window has ended hold no information. */
export async function deleteEndedCounters(db: Executor): Promise<number> {
  const result = await db
    .deleteFrom('rate_limit_counters')
    .where('window_ends', '<=', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
