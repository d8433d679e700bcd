import type { Db } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { IDEMPOTENCY_CLEANUP_JOB, idempotencyCleanupHandler, scheduleIdempotencyCleanup } from './idempotency.jobs.js';

/** Idempotency-Keys: the one rule every create claims its key by (used in place), and their cleanup. */
export function idempotencyModule(deps: { readonly db: Db; readonly clock: Clock }) {
  return {
    jobs: { [IDEMPOTENCY_CLEANUP_JOB]: idempotencyCleanupHandler(deps.db, deps.clock) } satisfies JobHandlers,
    schedule: scheduleIdempotencyCleanup,
  };
}
