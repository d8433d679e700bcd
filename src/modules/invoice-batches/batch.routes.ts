import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkspaceParams } from '../../http/common.schemas.js';
import { errorResponses } from '../../http/error-examples.js';
import { BEARER_SECURITY } from '../../http/openapi-operation.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../shared/clock.js';
import type { InvoiceBatchService } from './batch.service.js';
import { MERCHANT_GUARD_ERRORS } from '../../http/workspace-route.js';
import { presentInvoice } from '../invoices/index.js';
import { IdempotencyHeaders } from '../invoices/index.js';
import { RETAINED_BATCHES } from './batch.js';
import { BatchBody, BatchView, QuoteBody, QuoteView } from './batch.schemas.js';
import { batchExamples } from './batch.examples.js';

/** What these routes call. */
export interface InvoiceBatchRouteDeps {
  readonly config: Pick<Config, 'publicBaseUrl' | 'invoiceRetentionDays'>;
  readonly clock: Clock;
  readonly invoiceBatches: InvoiceBatchService;
}

const tags = ['Invoice batches'];

const QUOTE_DOCS: OperationDocs = {
  errors: ['invalid_request', 'unknown_field', 'invalid_json', ...MERCHANT_GUARD_ERRORS],
  examples: batchExamples.quote,
};
const CREATE_DOCS: OperationDocs = {
  errors: [
    'invalid_request',
    'unknown_field',
    'invalid_json',
    'budget_exceeded',
    'idempotency_key_missing',
    'invalid_idempotency_key',
    'batch_binding_evicted',
    'idempotency_key_reused',
    ...MERCHANT_GUARD_ERRORS,
  ],
  examples: batchExamples.create,
};

export function invoiceBatchRoutes(services: InvoiceBatchRouteDeps): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/invoice-batches/quote',
      {
        config: { permission: ['invoices:create', 'invoices:read'], checksItemsAlone: true, docs: QUOTE_DOCS },
        schema: {
          tags,
          summary: 'Preview a batch',
          description:
            'Checks every item with the rules of POST /invoices and prices it; creates nothing and charges nothing.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          body: QuoteBody,
          response: { 200: QuoteView, ...errorResponses(QUOTE_DOCS.errors) },
        },
      },
      async (request) => services.invoiceBatches.quote(request.apiKey!.workspaceId, request.body.items),
    );

    app.post(
      '/invoice-batches',
      {
        config: { permission: ['invoices:create', 'invoices:read'], checksItemsAlone: true, docs: CREATE_DOCS },
        schema: {
          tags,
          summary: 'Create up to 25 invoices',
          description:
            'Requires an Idempotency-Key. Answers 200 with one result per item: each item is created on its own, so a bad item does not stop the others. ' +
            'After a timeout, resend the same key and body: created items come back as they were (same ids and numbers, no second charge) and ' +
            'refused items are tried again. The same key with another batch: 422. Above `budgetCredits`: 400 `budget_exceeded`, nothing created. ' +
            `A workspace keeps its ${RETAINED_BATCHES} most recent batch keys (no time limit); an older key answers 409 \`batch_binding_evicted\`.`,
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          headers: IdempotencyHeaders,
          body: BatchBody,
          response: { 200: BatchView, ...errorResponses(CREATE_DOCS.errors) },
        },
      },
      async (request) => {
        const { results } = await services.invoiceBatches.create(
          request.apiKey!.workspaceId,
          request.headers['idempotency-key'],
          request.body,
        );
        // A retried batch replays invoices created when it was first sent: they are shown as they are now.
        const now = services.clock.now();
        return {
          results: results.map((result) =>
            'invoice' in result ? { invoice: presentInvoice(result.invoice, services.config, now) } : result,
          ),
        };
      },
    );
  };
}
