import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkspaceParams, defaultEmptyBody, errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import type { ExpiresIn, InvoiceId } from './invoice.js';
import { presentInvoice } from './invoice.present.js';
import { CREATE_FIELD_CODES, CreateInvoiceBody, IdempotencyHeaders, InvoiceParams, InvoiceView, RenewBody } from './invoice.schemas.js';

const tags = ['Invoices'];

export function invoiceRoutes(services: Services): FastifyPluginAsyncTypebox {
  const present = (invoice: Parameters<typeof presentInvoice>[0]) => presentInvoice(invoice, services.config.publicBaseUrl);
  return async (app) => {
    app.post(
      '/invoices',
      {
        config: { permission: 'invoices:create', fieldErrorCodes: CREATE_FIELD_CODES },
        schema: {
          tags,
          summary: 'Create an invoice',
          description:
            'Requires an Idempotency-Key. Retrying with the same key and body answers the same 201 (same id and number, no second charge; ' +
            'a concurrent duplicate waits for the first and replays it, marked `Idempotent-Replayed: true`). The same key with another body: 422. ' +
            'Refusals create nothing and charge nothing; they do not use up the key.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          headers: IdempotencyHeaders,
          body: CreateInvoiceBody,
          response: { 201: InvoiceView, ...errors(400, 401, 402, 403, 422, 429) },
        },
      },
      async (request, reply) => {
        const { invoice, replayed } = await services.invoices.create(request.apiKey!.workspaceId, request.body, {
          idempotencyKey: request.headers['idempotency-key'],
          source: 'api',
        });
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return reply.code(201).send(present(invoice));
      },
    );

    app.get(
      '/invoices/:invoiceId',
      {
        config: { permission: 'payments:read' },
        schema: { tags, summary: 'Read an invoice and its status', security: BEARER_SECURITY, params: InvoiceParams, response: { 200: InvoiceView, ...errors(401, 403, 404, 429) } },
      },
      async (request) => present(await services.invoices.get(request.apiKey!.workspaceId, request.params.invoiceId as InvoiceId)),
    );

    app.post(
      '/invoices/:invoiceId/cancel',
      {
        config: { permission: 'invoices:create' },
        schema: {
          tags,
          summary: 'Cancel an invoice',
          description: 'Open or expired invoices only; releases the success-fee reserve. Paid: 409 invoice_already_paid. Cancelling twice answers the cancelled invoice.',
          security: BEARER_SECURITY,
          params: InvoiceParams,
          response: { 200: InvoiceView, ...errors(401, 403, 404, 409, 429) },
        },
      },
      async (request) => present(await services.invoices.cancel(request.apiKey!.workspaceId, request.params.invoiceId as InvoiceId)),
    );

    app.post(
      '/invoices/:invoiceId/renew',
      {
        config: { permission: 'invoices:create', fieldErrorCodes: { expiresIn: 'invalid_expires_in' } },
        preValidation: defaultEmptyBody,
        schema: {
          tags,
          summary: 'Renew the payment link',
          description:
            'Open or expired invoices: a new deadline from now and a new link version; the number stays. Costs the credits of the new window. ' +
            'Payments signed for the older link are refused.',
          security: BEARER_SECURITY,
          params: InvoiceParams,
          body: RenewBody,
          response: { 200: InvoiceView, ...errors(400, 401, 402, 403, 404, 409, 429) },
        },
      },
      async (request) => {
        const expiresIn = request.body.expiresIn as ExpiresIn | undefined;
        return present(await services.invoices.renew(request.apiKey!.workspaceId, request.params.invoiceId as InvoiceId, expiresIn));
      },
    );
  };
}
