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
        if (!prefersPdf(request.headers.accept)) return presentReceipt(receipt);
        const pdf = await receiptPdf(receipt);
        return reply.type('application/pdf').header('content-disposition', receiptAttachment(receipt)).send(pdf);
      },
    }),
  ];
}

/** Whether `application/pdf` is named and weighs more than JSON (`application/json`, `application/*`, `*\/*`). */
export function prefersPdf(accept: string | undefined): boolean {
  if (!accept) return false;
  let pdf = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type = '', ...params] = part.trim().toLowerCase().split(';');
    const q = Number(
      params
        .map((p) => p.trim())
        .find((p) => p.startsWith('q='))
        ?.slice(2) ?? '1',
    );
    const weight = Number.isFinite(q) ? q : 0;
    if (type === 'application/pdf') pdf = Math.max(pdf, weight);
    if (type === 'application/json' || type === 'application/*' || type === '*/*') json = Math.max(json, weight);
  }
  return pdf > json;
}
