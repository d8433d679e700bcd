/** What other modules may use of idempotency keys; everything else is the module's own. */
export { IDEMPOTENCY_TTL_SECONDS, checkIdempotencyKey, requestHash } from './idempotency.js';
export { createIdempotently } from './idempotency.repo.js';
export { idempotencyModule } from './idempotency.module.js';
