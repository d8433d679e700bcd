import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { randomToken, type WorkspaceId } from '../../shared/ids.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { normalisePortalAmount } from './invoice-input.js';
import { presentInvoice } from './invoice.present.js';
import { CREATE_FIELD_CODES, CreateInvoiceBody, IdempotencyHeaders, InvoiceView } from './invoice.schemas.js';

const tags = ['Portal'];

/** Manual invoices from the portal: same rules and numbering as the API, plus comma amounts. */
export function invoicePortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = (request: { portalSession?: { wallet: Parameters<Services['workspaces']['getOwned']>[0] } }, workspaceId: string) =>
    services.workspaces.getOwned(request.portalSession!.wallet, workspaceId as WorkspaceId);
  const present = (invoice: Parameters<typeof presentInvoice>[0]) => presentInvoice(invoice, services.config.publicBaseUrl);

  return async (app) => {
    app.get(
      '/w/:workspaceId/invoices',
      {
        schema: {
          tags,
          summary: 'Recent invoices',
          params: PortalWorkspaceParams,
          querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) }),
          response: { 200: Type.Object({ invoices: Type.Array(InvoiceView) }), ...errors(400, 401, 404) },
        },
      },
      async (request) => {
        const workspace = await owned(request, request.params.workspaceId);
        return { invoices: (await services.invoices.list(workspace.id, request.query.limit ?? 50)).map(present) };
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
        const workspace = await owned(request, request.params.workspaceId);
        const { invoice } = await services.invoices.create(
          workspace.id,
          { ...request.body, amount: normalisePortalAmount(request.body.amount) },
          { idempotencyKey: request.headers['idempotency-key'] ?? `portal-${randomToken()}`, source: 'portal' },
        );
        return reply.code(201).send(present(invoice));
      },
    );
  };
}
