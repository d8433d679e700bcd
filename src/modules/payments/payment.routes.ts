import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import type { InvoiceId } from '../invoices/invoice.js';
import { InvoiceParams } from '../invoices/invoice.schemas.js';
import type { PaymentIntentId } from './payment-intent.js';
import { presentReceipt } from './payment.present.js';
import { PaymentIntentParams, PaymentIntentView, ReceiptView } from './payment.schemas.js';
import { presentIntent } from './payment.service.js';

export function paymentRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/payment-intents/:paymentIntentId',
      {
        config: { permission: 'payments:read' },
        schema: {
          tags: ['Payments'],
          summary: 'Read a payment intent',
          description: 'The server-side check a webhook receiver makes before fulfilling: status, amount, recipient and invoice.',
          security: BEARER_SECURITY,
          params: PaymentIntentParams,
          response: { 200: PaymentIntentView, ...errors(401, 403, 404, 429) },
        },
      },
      async (request) => {
        const { intent, invoice } = await services.payments.intent(request.apiKey!.workspaceId, request.params.paymentIntentId as PaymentIntentId);
        return presentIntent(intent, invoice);
      },
    );

    app.get(
      '/invoices/:invoiceId/receipt',
      {
        config: { permission: 'invoices:read' },
        schema: {
          tags: ['Payments'],
          summary: 'The receipt of a paid invoice',
          description: 'While the invoice is unpaid: 409 invoice_not_paid.',
          security: BEARER_SECURITY,
          params: InvoiceParams,
          response: { 200: ReceiptView, ...errors(401, 403, 404, 409, 429) },
        },
      },
      async (request) => {
        const { invoice, payment } = await services.payments.receipt(request.apiKey!.workspaceId, request.params.invoiceId as InvoiceId);
        return presentReceipt(invoice, payment);
      },
    );
  };
}
