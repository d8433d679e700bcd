import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/error-examples.js';
import { BEARER_SECURITY } from '../../http/openapi-operation.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import { MERCHANT_GUARD_ERRORS } from '../../http/workspace-route.js';
import { presentIntent, type PaymentIntentId, type PaymentService } from '../payment-engine/index.js';
import { PaymentIntentParams, PaymentIntentView } from './payment.schemas.js';
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
