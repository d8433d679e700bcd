/** What other modules may use of health; everything else is the module's own. */
export { HealthService } from './health.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { IssuesView } from './health.schemas.js';
export { healthModule } from './health.module.js';
