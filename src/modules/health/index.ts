/** What other modules may use of health; everything else is the module's own. */
export { healthRoutes } from './health.routes.js';
export { HealthService } from './health.service.js';
