import type { Db } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/index.js';
import { RATE_LIMIT_CLEANUP_JOB, rateLimitCleanupHandler, scheduleRateLimitCleanup } from './rate-limit.jobs.js';
import { RateLimitService } from './rate-limit.service.js';

/**
 * The database-backed rate limits other modules count with. One per process: it remembers blocks it has
 * seen; the counts themselves are in the database.
 */
export function rateLimitsModule(deps: { readonly db: Db }) {
  return {
    limits: new RateLimitService({ db: deps.db }),
    jobs: { [RATE_LIMIT_CLEANUP_JOB]: rateLimitCleanupHandler(deps.db) } satisfies JobHandlers,
    schedule: scheduleRateLimitCleanup,
  };
}
