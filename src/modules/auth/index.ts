/** What other modules may use of auth; everything else is the module's own. */
export { AUTH_CLEANUP_JOB, authCleanupHandler, scheduleAuthCleanup } from './auth.jobs.js';
export { authRoutes } from './auth.routes.js';
export { AuthService } from './auth.service.js';
export type { Session } from './auth.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { NonceResponse, SessionResponse } from './auth.schemas.js';
export { requireSession } from './auth.guard.js';
