import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { DASHBOARD_DAYS, dailySeries, windowStart } from './dashboard.js';
import { DashboardView } from './dashboard.schemas.js';

/**
 * The dashboard chart's data: paid volume and webhook delivery outcomes per UTC day. Two grouped
 * index range scans (invoices_paid_idx, webhook_attempts_recent_idx), bounded by the window.
 */
export function dashboardPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/dashboard',
      {
        schema: {
          tags: ['Portal'],
          summary: `Paid volume and webhook success per day, last ${DASHBOARD_DAYS} days`,
          description: 'Days are UTC. Webhook attempt history is kept 30 days, like this window.',
          params: PortalWorkspaceParams,
          response: { 200: DashboardView, ...errors(401, 404) },
        },
      },
      async (request) => {
        const workspaceId = await owned(request, request.params.workspaceId);
        const from = windowStart(services.clock.now());
        const [paid, attempts] = await Promise.all([services.invoices.paidPerDay(workspaceId, from), services.webhooks.attemptsPerDay(workspaceId, from)]);
        return dailySeries(from, paid, attempts);
      },
    );
  };
}
