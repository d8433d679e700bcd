export { type Limit, type Verdict } from './rate-limit.js';
export { rateLimitCleanupHandler } from './rate-limit.jobs.js';
export { RateLimitService } from './rate-limit.service.js';
export { rateLimitsModule } from './rate-limits.module.js';
