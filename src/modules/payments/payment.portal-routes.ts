import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import type { InvoiceId } from '../invoices/invoice.js';
import { PortalInvoiceParams } from '../invoices/invoice.schemas.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { presentReceipt } from './payment.present.js';
import { ReceiptView } from './payment.schemas.js';

/** The invoice detail's receipt in the portal: GET /invoices/{id}/receipt under the wallet session. */
export function paymentPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/invoices/:invoiceId/receipt',
      {
        schema: {
          tags: ['Portal'],
          summary: 'The receipt of a paid invoice',
          description: 'While the invoice is unpaid: 409 invoice_not_paid.',
          params: PortalInvoiceParams,
          response: { 200: ReceiptView, ...errors(401, 404, 409) },
        },
      },
      async (request) => {
        const { invoice, payment } = await services.payments.receipt(await owned(request, request.params.workspaceId), request.params.invoiceId as InvoiceId);
        return presentReceipt(invoice, payment);
      },
    );
  };
}
