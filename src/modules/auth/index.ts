/** What other modules may use of auth; everything else is the module's own. */
export { authCleanupHandler } from './auth.jobs.js';
export { AuthService } from './auth.service.js';
export type { Session } from './auth.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { NonceResponse, SessionResponse } from './auth.schemas.js';
export { requireSession } from './auth.guard.js';
export { authModule } from './auth.module.js';
