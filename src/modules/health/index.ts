/** What other modules may use of health; everything else is the module's own. */
export { healthRoutes } from './health.routes.js';
export { HealthService } from './health.service.js';
// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { IssuesView } from './health.schemas.js';
