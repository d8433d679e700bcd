import type { Db } from '../../db/database.js';
import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import { deleteEndedCounters } from './rate-limit.repo.js';

export const RATE_LIMIT_CLEANUP_JOB = 'rate-limits.cleanup';
/** Windows last a minute: counters of a flood of addresses are gone within minutes. */
const EVERY_SECONDS = 300;

/** Creates the recurring cleanup job unless it exists (its unique key makes this safe on every start). */
export function scheduleRateLimitCleanup(db: Db) {
  return enqueueJob(db, { kind: RATE_LIMIT_CLEANUP_JOB, uniqueKey: RATE_LIMIT_CLEANUP_JOB });
}

/** Deletes counters whose window has ended; one row that reschedules itself and never completes. */
export function rateLimitCleanupHandler(db: Db): JobHandler {
  return async () => {
    await deleteEndedCounters(db);
    throw new RetryLater(EVERY_SECONDS, 'next rate-limit cleanup in five minutes');
  };
}
