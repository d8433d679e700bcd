import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkspaceParams, errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import { BillingView } from './billing.schemas.js';

export function billingRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/billing',
      {
        config: { permission: 'billing:read' },
        schema: {
          tags: ['Billing'],
          summary: 'Credit balance, reserve, tariff and maxInvoiceAmount',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          response: { 200: BillingView, ...errors(400, 401, 403, 429) },
        },
      },
      async (request) => services.billing.get(request.apiKey!.workspaceId),
    );
  };
}
