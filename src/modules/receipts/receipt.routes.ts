import { prefersOverJson } from '../../http/accept.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { InvoiceParams } from '../invoices/index.js';
import { presentReceipt } from './receipt.present.js';
import { receiptAttachment, receiptPdf } from './receipt.pdf.js';
import { receiptExamples } from './receipt.examples.js';
import { ReceiptAnswer } from './receipt.schemas.js';
import type { ReceiptService } from './receipt.service.js';

/** GET /invoices/{id}/receipt: the API, and the portal's invoice detail; JSON, or a PDF when asked for. */
export function receiptRoutes(services: { readonly receipts: ReceiptService }): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/invoices/:invoiceId/receipt',
      permission: 'invoices:read',
      schema: {
        tags: ['Payments'],
        summary: 'The receipt of a paid invoice',
        description:
          'JSON, or the same receipt as a PDF document with `Accept: application/pdf` (the buyer downloads it from the paid checkout page). ' +
          'While the invoice is unpaid: 409 invoice_not_paid.',
        params: InvoiceParams,
        produces: ['application/json', 'application/pdf'],
        response: { 200: ReceiptAnswer },
      },
      errors: ['not_found', 'invoice_not_paid'],
      examples: receiptExamples.receipt,
      handler: async (request, reply) => {
        const receipt = await services.receipts.read(request.principal!.workspaceId, request.params.invoiceId);
        reply.header('Vary', 'Accept');
        if (!prefersOverJson(request.headers.accept, 'application/pdf')) return presentReceipt(receipt);
        const pdf = await receiptPdf(receipt);
        return reply.type('application/pdf').header('content-disposition', receiptAttachment(receipt)).send(pdf);
      },
    }),
  ];
}
