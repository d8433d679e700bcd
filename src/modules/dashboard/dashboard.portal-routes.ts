import { WorkspaceParams } from '../../http/common.schemas.js';
import type { Clock } from '../../shared/clock.js';
import type { InvoiceService } from '../invoices/index.js';
import type { WebhookService } from '../webhooks/index.js';
import { portalRoute, type WorkspaceRoute } from '../../http/workspace-route.js';
import { DASHBOARD_DAYS, dailySeries, windowStart } from './dashboard.js';
import { DashboardView } from './dashboard.schemas.js';
import { dashboardExamples } from './dashboard.examples.js';

/** What these routes call. */
export interface DashboardRouteDeps {
  readonly clock: Clock;
  readonly invoices: InvoiceService;
  readonly webhooks: WebhookService;
}

/**
 * The dashboard chart's data: paid volume and webhook delivery outcomes per UTC day. Two grouped
 * index range scans (invoices_paid_idx, webhook_attempts_recent_idx), bounded by the window.
 */
export function dashboardPortalRoutes(services: DashboardRouteDeps): WorkspaceRoute[] {
  return [
    portalRoute({
      method: 'GET',
      url: '/dashboard',
      schema: {
        summary: `Paid volume and webhook success per day, last ${DASHBOARD_DAYS} days`,
        description: 'Days are UTC. Webhook attempt history is kept 30 days, like this window.',
        params: WorkspaceParams,
        response: { 200: DashboardView },
      },
      errors: [],
      examples: dashboardExamples.dashboard,
      handler: async (request) => {
        const { workspaceId } = request.principal!;
        const from = windowStart(services.clock.now());
        const [paid, attempts] = await Promise.all([
          services.invoices.paidPerDay(workspaceId, from),
          services.webhooks.attemptsPerDay(workspaceId, from),
        ]);
        return dailySeries(from, paid, attempts);
      },
    }),
  ];
}
