export { ALLOWED, refusedUntil, type Limit, type Verdict } from './rate-limit.js';
export { RATE_LIMIT_CLEANUP_JOB, rateLimitCleanupHandler, scheduleRateLimitCleanup } from './rate-limit.jobs.js';
export { CLEAR_RECHECK_MS, RateLimitService } from './rate-limit.service.js';
