import { WorkspaceParams } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { portalRoute, type WorkspaceRoute } from '../../http/workspace-route.js';
import type { InvoiceStatus } from './invoice.js';
import { presentInvoice } from './invoice.present.js';
import { InvoiceListQuery, InvoicePage } from './invoice.schemas.js';

/** The portal's invoice list; the API has the change feed and the invoice search instead. */
export function invoicePortalRoutes(services: Services): WorkspaceRoute[] {
  return [
    portalRoute({
      method: 'GET',
      url: '/invoices',
      fieldErrorCodes: { cursor: 'invalid_cursor' },
      schema: {
        summary: 'Invoices, newest first, optionally of one status or of one automation',
        params: WorkspaceParams,
        querystring: InvoiceListQuery,
        response: { 200: InvoicePage },
      },
      errors: [400],
      handler: async (request) => {
        const { cursor, limit, automationId } = request.query;
        // The schema admits only status names.
        const status = request.query.status as InvoiceStatus | undefined;
        const page = await services.invoices.list(request.principal!.workspaceId, {
          limit,
          ...(status && { status }),
          ...(automationId && { automationId }),
          ...(cursor && { before: BigInt(cursor) }),
        });
        return {
          invoices: page.invoices.map((invoice) => presentInvoice(invoice, services.config.publicBaseUrl)),
          nextCursor: page.nextBefore?.toString() ?? null,
        };
      },
    }),
  ];
}
