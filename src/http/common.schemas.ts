import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.js';
import { ID_PATTERN, randomToken } from '../shared/ids.js';

export const ErrorBody = Type.Object(
  {
    code: Type.String({ description: 'Stable snake_case error code; see the error table.' }),
    message: Type.String({ description: 'Human-readable explanation.' }),
    requestId: Type.String({ description: 'Also sent as the X-Request-ID header; quote it to the operator.' }),
    details: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Error', additionalProperties: true, description: 'The one error body of every 4xx and 5xx response.' },
);

export const WorkspaceParams = Type.Object({
  workspaceId: Type.String({ pattern: ID_PATTERN, description: 'Workspace id (`ws_…`).' }),
});

export const Timestamp = Type.String({ format: 'date-time' });

/** The schema, or null. */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** For routes whose JSON body may be left out entirely (`POST …/renew`): no body means `{}`. */
export async function defaultEmptyBody(request: { body: unknown }): Promise<void> {
  request.body ??= {};
}

/**
 * For an action that takes no fields (cancel an invoice; pause, resume or end an automation): no body,
 * or `{}`. A field is refused as every body schema refuses one (400 unknown_field), never ignored; the
 * document shows no body, so clients send none.
 */
export async function refuseBodyFields(request: FastifyRequest): Promise<void> {
  const { body } = request;
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('invalid_request', 'Invalid body: send no body, or {}.', {
      details: [{ path: '(body)', message: 'must be an empty object' }],
    });
  }
  const [field] = Object.keys(body);
  if (field !== undefined) {
    throw new AppError('unknown_field', `Invalid body: ${field} is not a known field.`, {
      details: [{ path: field, message: 'is not a known field' }],
    });
  }
}

/**
 * Portal forms may leave out the Idempotency-Key: a browser request without one gets a key of its own,
 * and the merchant API's rules apply unchanged after it.
 */
export function ensureIdempotencyKey(request: FastifyRequest): void {
  // Assigned as a whole: Fastify hands out a fresh merged copy of the headers once they were validated.
  if (request.headers['idempotency-key'] === undefined)
    request.headers = { ...request.headers, 'idempotency-key': `portal-${randomToken()}` };
}

/** One network's payment details (checkout JSON of invoices, credit purchases): see paymentNetworkDetails. */
export const PaymentNetworkView = Type.Object({
  name: Type.String({ description: 'Send this as `network` when paying.' }),
  chainId: Type.Integer(),
  token: Type.String({
    description:
      'The USDC contract: the EIP-712 `verifyingContract` of an authorization, the `transfer` target of a plain payment.',
  }),
  tokenName: Type.String({ description: 'EIP-712 domain name of the token.' }),
  tokenVersion: Type.String({ description: 'EIP-712 domain version of the token.' }),
  confirmations: Type.Integer({ description: 'Blocks a transfer needs before it counts.' }),
  paymentUri: Type.String({
    description:
      'EIP-681 URI for a QR code: `ethereum:<token>@<chainId>/transfer?address=<recipient>&uint256=<micro-units>`.',
  }),
});

/** A payer's latest attempt at an order (an invoice on its checkout, a credit purchase), for a progress display. */
export const LatestPaymentAttempt = Type.Object({
  id: Type.String({ description: 'Payment intent id (`pi_…`).' }),
  status: Type.Unsafe<'processing' | 'succeeded' | 'failed' | 'reverted'>({
    type: 'string',
    enum: ['processing', 'succeeded', 'failed', 'reverted'],
    description:
      '`reverted`: it had succeeded, then a reorganisation of the chain took its transaction out before it was final; the invoice is payable again.',
  }),
  failureReason: Type.Union([
    Type.String({
      description:
        'amount_mismatch, recipient_mismatch, wrong_token, reverted, already_used, not_found, expired, predates_invoice, …',
    }),
    Type.Null(),
  ]),
  method: Type.Unsafe<'authorization' | 'transaction'>({
    type: 'string',
    enum: ['authorization', 'transaction'],
  }),
  network: Type.String(),
  transactionHash: Type.Union([Type.String(), Type.Null()]),
  submittedAt: Timestamp,
  finishedAt: Type.Union([Timestamp, Type.Null()]),
});
