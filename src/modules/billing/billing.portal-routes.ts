import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { BillingView } from './billing.schemas.js';

/** The portal's billing card: GET /billing under the wallet session. */
export function billingPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/billing',
      {
        schema: {
          tags: ['Portal'],
          summary: 'Credit balance, reserve, tariff and maxInvoiceAmount',
          params: PortalWorkspaceParams,
          response: { 200: BillingView, ...errors(401, 404) },
        },
      },
      async (request) => services.billing.get(await owned(request, request.params.workspaceId)),
    );
  };
}
