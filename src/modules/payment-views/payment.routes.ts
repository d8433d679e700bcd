import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/error-examples.js';
import { BEARER_SECURITY } from '../../http/openapi-operation.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import { MERCHANT_GUARD_ERRORS, sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { InvoiceParams } from '../invoices/index.js';
import { presentIntent, type PaymentIntentId, type PaymentService } from '../payment-engine/index.js';
import { presentReceipt } from './receipt.present.js';
import { PaymentIntentParams, PaymentIntentView, ReceiptView } from './payment.schemas.js';
import { paymentExamples } from './payment.examples.js';

/** What these routes call. */
export interface PaymentRouteDeps {
  readonly payments: PaymentService;
}

const PAYMENT_INTENT_DOCS: OperationDocs = {
  errors: ['not_found', ...MERCHANT_GUARD_ERRORS],
  examples: paymentExamples.paymentIntent,
};

/** Merchant API only: a webhook receiver's check before fulfilling. */
export function paymentIntentRoutes(services: PaymentRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/payment-intents/:paymentIntentId',
      {
        config: { permission: 'payments:read', docs: PAYMENT_INTENT_DOCS },
        schema: {
          tags: ['Payments'],
          summary: 'Read a payment intent',
          description:
            'The server-side check a webhook receiver makes before fulfilling: status, amount, recipient and invoice.',
          security: BEARER_SECURITY,
          params: PaymentIntentParams,
          response: { 200: PaymentIntentView, ...errorResponses(PAYMENT_INTENT_DOCS.errors) },
        },
      },
      async (request) => {
        const { intent, invoice } = await services.payments.intent(
          request.apiKey!.workspaceId,
          request.params.paymentIntentId as PaymentIntentId,
        );
        return presentIntent(intent, invoice);
      },
    );
  };
}

/** GET /invoices/{id}/receipt: the API, and the portal's invoice detail. */
export function receiptRoutes(services: PaymentRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/invoices/:invoiceId/receipt',
      permission: 'invoices:read',
      schema: {
        tags: ['Payments'],
        summary: 'The receipt of a paid invoice',
        description: 'While the invoice is unpaid: 409 invoice_not_paid.',
        params: InvoiceParams,
        response: { 200: ReceiptView },
      },
      errors: ['not_found', 'invoice_not_paid'],
      examples: paymentExamples.receipt,
      handler: async (request) => {
        const { invoiceId } = request.params;
        const { invoice, payment } = await services.payments.receipt(request.principal!.workspaceId, invoiceId);
        return presentReceipt(invoiceId, invoice, payment);
      },
    }),
  ];
}
