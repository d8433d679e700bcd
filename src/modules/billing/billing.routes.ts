import { WorkspaceParams } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { BillingView } from './billing.schemas.js';

/** GET /billing: the API and the portal's billing card. */
export function billingRoutes(services: Services): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/billing',
      permission: 'billing:read',
      schema: {
        tags: ['Billing'],
        summary: 'Credit balance, reserve, tariff and maxInvoiceAmount',
        params: WorkspaceParams,
        response: { 200: BillingView },
      },
      // The merchant API has always listed 400 here (a key in the query string); the portal has no such case.
      errors: [400],
      portal: { errors: [] },
      handler: async (request) => services.billing.get(request.principal!.workspaceId),
    }),
  ];
}
