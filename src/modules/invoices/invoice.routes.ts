import type { FastifyRequest } from 'fastify';
import {
  WorkspaceParams,
  defaultEmptyBody,
  ensureIdempotencyKey,
  refuseBodyFields,
} from '../../http/common.schemas.js';
import type { Config } from '../../config/config.js';
import type { Clock } from '../../shared/clock.js';
import type { InvoiceService } from './invoice.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import type { ExpiresIn, InvoiceId, InvoiceStatus } from './invoice.js';
import { normalisePortalAmount } from '../invoice-input/index.js';
import { presentInvoice } from './invoice.present.js';
import {
  CREATE_FIELD_CODES,
  CreateInvoiceBody,
  IdempotencyHeaders,
  InvoiceListQuery,
  InvoicePage,
  InvoiceParams,
  InvoiceView,
  PortalCreateInvoiceBody,
  RenewBody,
} from './invoice.schemas.js';
import { invoiceExamples } from './invoice.examples.js';

/** What these routes call. */
export interface InvoiceRouteDeps {
  readonly config: Pick<Config, 'publicBaseUrl' | 'invoiceRetentionDays'>;
  readonly clock: Clock;
  readonly invoices: InvoiceService;
  /** GET /invoices/export (the invoice-export module's), served in its place among these. */
  readonly exportRoute: SharedRoute;
}

const tags = ['Invoices'];

/** The invoice use cases: the API, and the portal's invoice form and detail. */
export function invoiceRoutes(services: InvoiceRouteDeps): SharedRoute[] {
  const present = (invoice: Parameters<typeof presentInvoice>[0]) =>
    presentInvoice(invoice, services.config, services.clock.now());
  return [
    sharedRoute({
      method: 'POST',
      url: '/invoices',
      permission: 'invoices:create',
      fieldErrorCodes: CREATE_FIELD_CODES,
      schema: {
        tags,
        summary: 'Create an invoice',
        description:
          'Requires an Idempotency-Key. Retrying with the same key and body answers the same 201 (same id and number, no second charge; ' +
          'a concurrent duplicate waits for the first and replays it, marked `Idempotent-Replayed: true`). The same key with another body: 422. ' +
          'Refusals create nothing and charge nothing; they do not use up the key.',
        params: WorkspaceParams,
        headers: IdempotencyHeaders,
        body: CreateInvoiceBody,
        response: { 201: InvoiceView },
      },
      errors: [
        'invalid_request',
        'unknown_field',
        'invalid_json',
        'invalid_amount',
        'amount_too_large',
        'unsupported_currency',
        'unsupported_network',
        'invalid_expires_in',
        'external_id_too_long',
        'description_too_long',
        'invalid_description',
        'invalid_return_url',
        'return_origin_not_allowed',
        'number_not_allowed',
        'idempotency_key_missing',
        'invalid_idempotency_key',
        'insufficient_credits',
        'pay_to_mismatch',
        'idempotency_key_reused',
      ],
      examples: invoiceExamples.create,
      portal: {
        summary: 'Create a manual invoice',
        description: 'As POST /invoices, but the amount may use a comma ("12,50"). Idempotency-Key is optional here.',
        body: PortalCreateInvoiceBody,
        preHandler: acceptPortalForm,
      },
      example: { body: { amount: '1,5' } },
      handler: async (request, reply) => {
        const { workspaceId, via } = request.principal!;
        const { invoice, replayed } = await services.invoices.create(workspaceId, request.body, {
          idempotencyKey: request.headers['idempotency-key'],
          source: via,
        });
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return reply.code(201).send(present(invoice));
      },
    }),

    sharedRoute({
      method: 'GET',
      url: '/invoices',
      permission: 'invoices:read',
      fieldErrorCodes: { cursor: 'invalid_cursor' },
      schema: {
        tags,
        summary: 'List invoices, newest first',
        description:
          'Optionally of one status (as GET shows it), of one automation, or created in a range of time; ' +
          'pass `nextCursor` as `cursor` for the next page. Invoices created after the first page was read ' +
          'do not appear on later pages (they are newer than the cursor): start again from the first page to see them.',
        params: WorkspaceParams,
        querystring: InvoiceListQuery,
        response: { 200: InvoicePage },
      },
      errors: ['invalid_request', 'invalid_cursor'],
      examples: invoiceExamples.list,
      portal: { summary: 'Invoices, newest first, optionally of one status, of one automation or of a range of time' },
      example: { query: '?status=paid&createdAfter=2026-11-01T00:00:00Z&createdBefore=2026-12-01T00:00:00Z&limit=50' },
      handler: async (request) => {
        const { cursor, limit, automationId, createdAfter, createdBefore } = request.query;
        // The schema admits only status names.
        const status = request.query.status as InvoiceStatus | undefined;
        const page = await services.invoices.list(request.principal!.workspaceId, {
          limit,
          ...(status && { status }),
          ...(automationId && { automationId }),
          ...(cursor && { before: BigInt(cursor) }),
          ...(createdAfter && { createdFrom: new Date(createdAfter) }),
          ...(createdBefore && { createdUntil: new Date(createdBefore) }),
        });
        return { invoices: page.invoices.map(present), nextCursor: page.nextBefore?.toString() ?? null };
      },
    }),

    services.exportRoute,

    sharedRoute({
      method: 'GET',
      url: '/invoices/:invoiceId',
      permission: 'payments:read',
      schema: {
        tags,
        summary: 'Read an invoice and its status',
        params: InvoiceParams,
        response: { 200: InvoiceView },
      },
      errors: ['not_found'],
      examples: invoiceExamples.get,
      portal: { summary: 'Read an invoice' },
      handler: async (request) =>
        present(await services.invoices.get(request.principal!.workspaceId, request.params.invoiceId as InvoiceId)),
    }),

    sharedRoute({
      method: 'POST',
      url: '/invoices/:invoiceId/cancel',
      permission: 'invoices:create',
      preValidation: refuseBodyFields,
      schema: {
        tags,
        summary: 'Cancel an invoice',
        description:
          'Open or expired invoices only; releases the success-fee reserve. Paid: 409 invoice_already_paid. Cancelling twice answers the cancelled invoice.',
        params: InvoiceParams,
        response: { 200: InvoiceView },
      },
      errors: ['invalid_request', 'unknown_field', 'not_found', 'invoice_already_paid', 'invoice_processing'],
      examples: invoiceExamples.cancel,
      portal: { description: 'As POST /invoices/{id}/cancel: open or expired invoices only.' },
      handler: async (request) =>
        present(await services.invoices.cancel(request.principal!.workspaceId, request.params.invoiceId as InvoiceId)),
    }),

    sharedRoute({
      method: 'POST',
      url: '/invoices/:invoiceId/renew',
      permission: 'invoices:create',
      fieldErrorCodes: { expiresIn: 'invalid_expires_in' },
      preValidation: defaultEmptyBody,
      schema: {
        tags,
        summary: 'Renew the payment link',
        description:
          'Open or expired invoices: a new deadline from now and a new link version; the number stays. Costs the credits of the new window. ' +
          'Payments signed for the older link are refused. `payTo`, like in POST /invoices, may only name the workspace wallet (else 403). ' +
          'An invoice issued while the workspace received at another address cannot be renewed: 409 invoice_recipient_changed, nothing charged ' +
          '(cancel it and create a new one).',
        params: InvoiceParams,
        body: RenewBody,
        response: { 200: InvoiceView },
      },
      errors: [
        'invalid_request',
        'unknown_field',
        'invalid_expires_in',
        'insufficient_credits',
        'not_found',
        'invoice_already_paid',
        'invoice_cancelled',
        'invoice_processing',
        'pay_to_mismatch',
        'invoice_recipient_changed',
      ],
      examples: invoiceExamples.renew,
      portal: {
        description:
          'As POST /invoices/{id}/renew: a new deadline and link version; costs the credits of the new window.',
      },
      handler: async (request) => {
        // The schema admits only the windows of ExpiresIn.
        const { expiresIn, payTo } = request.body as { expiresIn?: ExpiresIn; payTo?: string };
        return present(
          await services.invoices.renew(request.principal!.workspaceId, request.params.invoiceId as InvoiceId, {
            ...(expiresIn !== undefined && { expiresIn }),
            ...(payTo !== undefined && { payTo }),
          }),
        );
      },
    }),
  ];
}

/**
 * The portal form takes amounts as people type them ("12,50"), and a browser that sends no
 * Idempotency-Key gets one of its own; after this the merchant API's rules apply unchanged.
 */
async function acceptPortalForm(request: FastifyRequest): Promise<void> {
  const body = request.body as { amount: string };
  body.amount = normalisePortalAmount(body.amount);
  ensureIdempotencyKey(request);
}
