import type { FastifyRequest } from 'fastify';
import { WorkspaceParams, ensureIdempotencyKey } from '../../http/common.schemas.js';
import type { CreditPurchaseService } from './credit-purchase.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import { IdempotencyHeaders } from '../invoices/index.js';
import type { CreditPurchaseId } from './credit-purchase.js';
import {
  CreatePurchaseBody,
  CreditPurchaseView,
  PURCHASE_LIST_FIELD_CODES,
  PurchaseListQuery,
  PurchasePage,
  PurchaseParams,
} from './credit-purchase.schemas.js';
import { creditPurchaseExamples } from './credit-purchase.examples.js';

/** What these routes call. */
export interface CreditPurchaseRouteDeps {
  readonly creditPurchases: CreditPurchaseService;
}

const tags = ['Billing'];
const UNAVAILABLE =
  'Without an operator wallet configured (OPERATOR_WALLET), every credit-purchase endpoint answers 503 `purchases_unavailable`.';

/** Credit purchases: the API, and the portal's billing tab. */
export function creditPurchaseRoutes(services: CreditPurchaseRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'POST',
      url: '/credit-purchases',
      permission: 'billing:write',
      schema: {
        tags,
        summary: 'Buy a credit package',
        description:
          'Makes a purchase of one package from GET /billing `packages`: an order to pay `price` USDC to the operator wallet ' +
          '(`recipient`) within an hour, after which it reads `expired`. Its credits are added when it is paid. It is not an invoice: ' +
          'it has no number and appears in no change feed, webhook, search or timeline. ' +
          'Requires an Idempotency-Key, with the rules of POST /invoices: the same key and body answer the same 201 ' +
          '(a concurrent duplicate waits for the first and replays it, marked `Idempotent-Replayed: true`); the same key with another ' +
          'body: 422 `idempotency_key_reused`. An unknown `packageId`: 422 `unknown_package`. ' +
          UNAVAILABLE,
        params: WorkspaceParams,
        headers: IdempotencyHeaders,
        body: CreatePurchaseBody,
        response: { 201: CreditPurchaseView },
      },
      errors: [
        'invalid_request',
        'unknown_field',
        'invalid_json',
        'idempotency_key_missing',
        'invalid_idempotency_key',
        'unknown_package',
        'idempotency_key_reused',
        'purchases_unavailable',
      ],
      examples: creditPurchaseExamples.create,
      portal: {
        description: 'As POST /credit-purchases; Idempotency-Key is optional here.',
        preHandler: async (request: FastifyRequest) => ensureIdempotencyKey(request),
      },
      example: { body: { packageId: 'starter' } },
      handler: async (request, reply) => {
        const { workspaceId, via } = request.principal!;
        const { purchase, replayed } = await services.creditPurchases.create(workspaceId, request.body, {
          idempotencyKey: request.headers['idempotency-key'],
          source: via,
        });
        if (replayed) reply.header('Idempotent-Replayed', 'true');
        return reply.code(201).send(purchase);
      },
    }),

    sharedRoute({
      method: 'GET',
      url: '/credit-purchases',
      permission: 'billing:read',
      fieldErrorCodes: PURCHASE_LIST_FIELD_CODES,
      schema: {
        tags,
        summary: 'Credit purchases, newest first',
        description:
          'Page with `cursor` = the `nextCursor` of the previous page; a cursor this list did not hand out answers 400 `invalid_cursor`. ' +
          UNAVAILABLE,
        params: WorkspaceParams,
        querystring: PurchaseListQuery,
        response: { 200: PurchasePage },
      },
      errors: ['invalid_request', 'invalid_cursor', 'purchases_unavailable'],
      examples: creditPurchaseExamples.list,
      portal: { description: 'As GET /credit-purchases: newest first.' },
      handler: async (request) => services.creditPurchases.list(request.principal!.workspaceId, request.query),
    }),

    sharedRoute({
      method: 'GET',
      url: '/credit-purchases/:purchaseId',
      permission: 'billing:read',
      schema: {
        tags,
        summary: 'Read a credit purchase and its payment details',
        description: UNAVAILABLE,
        params: PurchaseParams,
        response: { 200: CreditPurchaseView },
      },
      errors: ['not_found', 'purchases_unavailable'],
      examples: creditPurchaseExamples.get,
      portal: { description: 'As GET /credit-purchases/{id}.' },
      handler: async (request) =>
        services.creditPurchases.get(request.principal!.workspaceId, request.params.purchaseId as CreditPurchaseId),
    }),
  ];
}
