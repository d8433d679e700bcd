import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { defaultEmptyBody, errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { randomToken } from '../../shared/ids.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { INVOICE_STATUSES, type ExpiresIn, type InvoiceId, type InvoiceStatus } from './invoice.js';
import { normalisePortalAmount } from './invoice-input.js';
import { presentInvoice } from './invoice.present.js';
import { CREATE_FIELD_CODES, CreateInvoiceBody, IdempotencyHeaders, InvoiceView, PortalInvoiceParams, RenewBody } from './invoice.schemas.js';

const tags = ['Portal'];

const ListQuery = Type.Object({
  status: Type.Optional(
    Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({
      type: 'string',
      enum: [...INVOICE_STATUSES],
      description: 'Only invoices with this status as GET shows it (an open invoice past its deadline counts as expired).',
    }),
  ),
  // 18 digits at most: every such number fits PostgreSQL's bigint, so no cursor can overflow a query.
  cursor: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,17}$', description: 'The `nextCursor` of the previous page.' })),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
});

const InvoicePage = Type.Object({
  invoices: Type.Array(InvoiceView, { description: 'Newest (highest number) first.' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null when there is none.' }),
});

/**
 * The portal's invoice routes: the merchant API's invoice use cases under the wallet session (no API
 * key), plus comma amounts when creating. Every route first checks that the wallet owns the workspace.
 */
export function invoicePortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  const present = (invoice: Parameters<typeof presentInvoice>[0]) => presentInvoice(invoice, services.config.publicBaseUrl);

  return async (app) => {
    app.get(
      '/w/:workspaceId/invoices',
      {
        config: { fieldErrorCodes: { cursor: 'invalid_cursor' } },
        schema: {
          tags,
          summary: 'Invoices, newest first, optionally of one status',
          params: PortalWorkspaceParams,
          querystring: ListQuery,
          response: { 200: InvoicePage, ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const workspaceId = await owned(request, request.params.workspaceId);
        const { cursor, limit } = request.query;
        // The schema admits only status names.
        const status = request.query.status as InvoiceStatus | undefined;
        const page = await services.invoices.list(workspaceId, { limit, ...(status && { status }), ...(cursor && { before: BigInt(cursor) }) });
        return { invoices: page.invoices.map(present), nextCursor: page.nextBefore?.toString() ?? null };
      },
    );

    app.post(
      '/w/:workspaceId/invoices',
      {
        config: { fieldErrorCodes: CREATE_FIELD_CODES },
        schema: {
          tags,
          summary: 'Create a manual invoice',
          description: 'As POST /invoices, but the amount may use a comma ("12,50"). Idempotency-Key is optional here.',
          params: PortalWorkspaceParams,
          headers: IdempotencyHeaders,
          body: Type.Composite([Type.Omit(CreateInvoiceBody, ['amount']), Type.Object({ amount: Type.String({ maxLength: 40 }) })], {
            additionalProperties: false,
          }),
          response: { 201: InvoiceView, ...errors(400, 401, 402, 403, 404, 422) },
        },
      },
      async (request, reply) => {
        const workspaceId = await owned(request, request.params.workspaceId);
        const { invoice } = await services.invoices.create(
          workspaceId,
          { ...request.body, amount: normalisePortalAmount(request.body.amount) },
          { idempotencyKey: request.headers['idempotency-key'] ?? `portal-${randomToken()}`, source: 'portal' },
        );
        return reply.code(201).send(present(invoice));
      },
    );

    app.get(
      '/w/:workspaceId/invoices/:invoiceId',
      { schema: { tags, summary: 'Read an invoice', params: PortalInvoiceParams, response: { 200: InvoiceView, ...errors(401, 404) } } },
      async (request) => {
        const workspaceId = await owned(request, request.params.workspaceId);
        return present(await services.invoices.get(workspaceId, request.params.invoiceId as InvoiceId));
      },
    );

    app.post(
      '/w/:workspaceId/invoices/:invoiceId/cancel',
      {
        schema: {
          tags,
          summary: 'Cancel an invoice',
          description: 'As POST /invoices/{id}/cancel: open or expired invoices only.',
          params: PortalInvoiceParams,
          response: { 200: InvoiceView, ...errors(401, 403, 404, 409) },
        },
      },
      async (request) => {
        const workspaceId = await owned(request, request.params.workspaceId);
        return present(await services.invoices.cancel(workspaceId, request.params.invoiceId as InvoiceId));
      },
    );

    app.post(
      '/w/:workspaceId/invoices/:invoiceId/renew',
      {
        config: { fieldErrorCodes: { expiresIn: 'invalid_expires_in' } },
        preValidation: defaultEmptyBody,
        schema: {
          tags,
          summary: 'Renew the payment link',
          description: 'As POST /invoices/{id}/renew: a new deadline and link version; costs the credits of the new window.',
          params: PortalInvoiceParams,
          body: RenewBody,
          response: { 200: InvoiceView, ...errors(400, 401, 402, 403, 404, 409) },
        },
      },
      async (request) => {
        const workspaceId = await owned(request, request.params.workspaceId);
        const expiresIn = request.body.expiresIn as ExpiresIn | undefined;
        return present(await services.invoices.renew(workspaceId, request.params.invoiceId as InvoiceId, expiresIn));
      },
    );
  };
}
