import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import type { InvoiceId } from '../invoices/invoice.js';
import { PortalInvoiceParams } from '../invoices/invoice.schemas.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { InvoiceTimelineView } from './timeline.schemas.js';

/** The invoice detail's timeline in the portal: GET /invoices/{id}/timeline under the wallet session. */
export function timelinePortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/invoices/:invoiceId/timeline',
      {
        schema: {
          tags: ['Portal'],
          summary: "An invoice's lifecycle and webhook delivery records",
          description: 'As GET /invoices/{id}/timeline.',
          params: PortalInvoiceParams,
          response: { 200: InvoiceTimelineView, ...errors(401, 404) },
        },
      },
      async (request) => services.timeline.forInvoice(await owned(request, request.params.workspaceId), request.params.invoiceId as InvoiceId),
    );
  };
}
