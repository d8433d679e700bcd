import { dashboardPortalRoutes, type DashboardRouteDeps } from './dashboard.portal-routes.js';

/** The portal's chart: paid volume and webhook outcomes per day, read from the invoices and webhooks. */
export function dashboardModule(deps: DashboardRouteDeps) {
  return { portalRoutes: dashboardPortalRoutes(deps) };
}
