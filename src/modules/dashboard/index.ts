/** What other modules may use of dashboard; everything else is the module's own. */
export { DASHBOARD_DAYS } from './dashboard.js';

// Response schemas, as types: the portal's browser code reads its JSON by them.
export type { DashboardView } from './dashboard.schemas.js';
export { dashboardModule } from './dashboard.module.js';
