import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { deleteExpiredIdempotencyKeys } from './idempotency.repo.js';

export const IDEMPOTENCY_CLEANUP_JOB = 'idempotency.cleanup';

/** Creates the recurring cleanup unless it exists (its unique key makes this safe on every start). */
export async function scheduleIdempotencyCleanup(db: Db): Promise<void> {
  await enqueueJob(db, { kind: IDEMPOTENCY_CLEANUP_JOB, uniqueKey: IDEMPOTENCY_CLEANUP_JOB });
}

/** Forgets idempotency keys after their retention (7 days, longer than any payment window). Hourly. */
export function idempotencyCleanupHandler(db: Db, clock: Clock): JobHandler {
  return async () => {
    await deleteExpiredIdempotencyKeys(db, clock.now());
    throw new RetryLater(3600, 'next cleanup in an hour');
  };
}
