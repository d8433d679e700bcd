import { Type, type TSchema } from '@sinclair/typebox';
import { LatestPaymentAttempt } from '../../http/common.schemas.js';
import type { ErrorCode } from '../../shared/errors.js';
import { errorResponses } from '../../http/error-examples.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import { CREDIT_PURCHASE_EXAMPLE, CreditPurchaseView, PURCHASE_ID_EXAMPLE } from '../credit-purchases/index.js';
import { EXAMPLE_IDS } from '../../shared/example-ids.js';
import { INVOICE_STATUSES, PAID_INVOICE_EXAMPLE } from '../invoices/index.js';
import { PAYMENT_INTENT_EXAMPLE, PaymentIntentView } from '../payment-views/index.js';
import {
  paymentResponseHeader,
  v1PaymentRequired,
  v2NetworkName,
  v2PaymentRequiredHeader,
  type Requirement,
} from './x402.js';

/**
 * The x402 endpoint in the API document. Its routes carry no schema (no validation, no serializer on the
 * 402 path, which agents hit first and often), so the document describes them here, next to the code that
 * writes the wire formats, and its examples are produced by that code (x402.ts).
 */

const Base64Json = (description: string, decoded: TSchema) =>
  Type.String({ description, contentEncoding: 'base64', contentMediaType: 'application/json', contentSchema: decoded });

const Extra = Type.Object({
  name: Type.String({ description: 'EIP-712 domain name of the token.' }),
  version: Type.String({ description: 'EIP-712 domain version of the token.' }),
  linkVersion: Type.Integer({
    description: "The invoice's link version; v2 clients echo it, older links are refused.",
  }),
});

const V1Requirement = Type.Object({
  scheme: Type.Literal('exact'),
  network: Type.String({ description: 'v1 network name: `base-sepolia`, `base`, or the configured name.' }),
  maxAmountRequired: Type.String({ description: 'The exact amount in USDC micro-units.' }),
  resource: Type.String({ description: 'This URL.' }),
  description: Type.String(),
  mimeType: Type.Literal('application/json'),
  payTo: Type.String({ description: 'The workspace wallet (the operator wallet for a credit purchase).' }),
  maxTimeoutSeconds: Type.Integer({ description: 'How long a signed authorization may stay valid (≤ 300 s).' }),
  asset: Type.String({ description: 'The USDC contract, checksummed.' }),
  outputSchema: Type.Object({
    input: Type.Object({ type: Type.Literal('http'), method: Type.Literal('GET') }),
    output: Type.Null(),
  }),
  extra: Extra,
});

const PaymentRequiredV1 = Type.Object(
  {
    x402Version: Type.Literal(1),
    error: Type.String({
      description: '`Payment required` without a payment header; otherwise why the payment was not taken.',
    }),
    accepts: Type.Array(V1Requirement, { description: 'One entry per network the order can be paid on.' }),
    requestId: Type.String(),
  },
  { description: 'x402 v1: read by `x402-fetch`, which retries with `X-PAYMENT`.' },
);

const PaymentRequiredV2 = Type.Object({
  x402Version: Type.Literal(2),
  error: Type.String(),
  resource: Type.Object({
    url: Type.String(),
    description: Type.String(),
    mimeType: Type.Literal('application/json'),
  }),
  accepts: Type.Array(
    Type.Object({
      scheme: Type.Literal('exact'),
      network: Type.String({ description: 'CAIP-2: `eip155:<chainId>`.' }),
      amount: Type.String({ description: 'The exact amount in USDC micro-units.' }),
      asset: Type.String(),
      payTo: Type.String(),
      maxTimeoutSeconds: Type.Integer(),
      extra: Extra,
    }),
  ),
  extensions: Type.Object({
    'payment-identifier': Type.Object(
      { info: Type.Object({ required: Type.Literal(false) }), schema: Type.Object({}) },
      {
        description:
          'The x402 payment-identifier extension (`@x402/extensions`), optional: a client names its payment with an id of ' +
          'its own (16–128 of `[A-Za-z0-9_-]`) at `extensions["payment-identifier"].info.id` of PAYMENT-SIGNATURE, the same on ' +
          'every retry. The same payment sent again under that id gets the first answer (200 with the same PAYMENT-RESPONSE, ' +
          'also while the first is still settling); the id on another payment of the order answers 409 ' +
          '`payment_identifier_conflict`.',
      },
    ),
  }),
});

const PaymentResponse = Type.Object({
  success: Type.Boolean(),
  transaction: Type.String({ description: 'The settlement transaction hash.' }),
  network: Type.String({ description: 'In the spelling of the request’s protocol version.' }),
  payer: Type.String(),
  errorReason: Type.Optional(Type.String({ description: 'Why a failed payment failed.' })),
});

const InvoicePaid = Type.Object({
  invoiceId: Type.String(),
  number: Type.String(),
  status: Type.Unsafe<(typeof INVOICE_STATUSES)[number]>({ type: 'string', enum: [...INVOICE_STATUSES] }),
  paymentIntent: PaymentIntentView,
});

const PurchasePaid = Type.Object({ creditPurchase: CreditPurchaseView, payment: LatestPaymentAttempt });

const ORIGIN = 'https://pay.example.com';
const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const BASE_SEPOLIA = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrls: ['https://sepolia.base.org'],
  usdc: USDC,
  confirmations: 2,
  tokenName: 'USDC',
  tokenVersion: '2',
} as const;

interface Order {
  readonly kind: 'invoice' | 'credit purchase';
  readonly path: string;
  readonly amount: bigint;
  readonly payTo: `0x${string}`;
  readonly description: string;
  readonly paid: TSchema;
  readonly paidExample: unknown;
  readonly errors: readonly ErrorCode[];
}

const ORDERS: readonly Order[] = [
  {
    kind: 'invoice',
    path: `x402/${EXAMPLE_IDS.invoice}`,
    amount: 12_500_000n,
    payTo: EXAMPLE_IDS.wallet,
    description: 'Invoice INV-000042',
    paid: InvoicePaid,
    paidExample: {
      invoiceId: EXAMPLE_IDS.invoice,
      number: PAID_INVOICE_EXAMPLE.number,
      status: 'paid',
      paymentIntent: PAYMENT_INTENT_EXAMPLE,
    },
    errors: [
      'pay_to_mismatch',
      'not_found',
      'invoice_already_paid',
      'invoice_processing',
      'invoice_expired',
      'invoice_cancelled',
      'payment_identifier_conflict',
      'rate_limited',
      'service_unavailable',
    ],
  },
  {
    kind: 'credit purchase',
    path: `x402/credit-purchases/${PURCHASE_ID_EXAMPLE}`,
    amount: 10_000_000n,
    payTo: CREDIT_PURCHASE_EXAMPLE.recipient,
    description: 'Credit purchase: 100 credits',
    paid: PurchasePaid,
    paidExample: {
      creditPurchase: {
        ...CREDIT_PURCHASE_EXAMPLE,
        status: 'paid',
        network: 'base-sepolia',
        paidAt: '2026-11-14T09:41:12.000Z',
        payment: { authorizationNonce: null, networks: [] },
      },
      payment: {
        id: PAYMENT_INTENT_EXAMPLE.id,
        status: 'succeeded',
        failureReason: null,
        method: 'authorization',
        network: 'base-sepolia',
        transactionHash: EXAMPLE_IDS.transaction,
        submittedAt: PAYMENT_INTENT_EXAMPLE.submittedAt,
        finishedAt: PAYMENT_INTENT_EXAMPLE.finishedAt,
      },
    },
    errors: [
      'pay_to_mismatch',
      'not_found',
      'purchase_paid',
      'purchase_processing',
      'purchase_expired',
      'payment_identifier_conflict',
      'rate_limited',
      'purchases_unavailable',
      'service_unavailable',
    ],
  },
];

const PAYMENT_HEADERS = [
  {
    name: 'PAYMENT-SIGNATURE',
    in: 'header',
    required: false,
    description:
      'x402 v2 (`@x402/fetch`): standard base64 of `{"x402Version":2,"payload":{"authorization":{from,to,value,validAfter,validBefore,nonce},"signature":"0x…"},"resource":{…},"accepted":{…the chosen entry of PAYMENT-REQUIRED…}}`. Without it (and without X-PAYMENT) the answer is 402.',
    schema: { type: 'string' },
  },
  {
    name: 'X-PAYMENT',
    in: 'header',
    required: false,
    description:
      'x402 v1 (`x402-fetch`): base64 of `{"x402Version":1,"scheme":"exact","network":"base-sepolia","payload":{"signature":"0x…","authorization":{…}}}`. PAYMENT-SIGNATURE wins when both are sent.',
    schema: { type: 'string' },
  },
];

/** The documented x402 operations: path items for the document, and the docs its examples come from. */
export function x402Operations(): {
  paths: Record<string, unknown>;
  operations: { operationId: string; docs: OperationDocs }[];
} {
  const paths: Record<string, Record<string, unknown>> = {};
  const operations: { operationId: string; docs: OperationDocs }[] = [];
  for (const order of ORDERS) {
    const purchase = order.kind === 'credit purchase';
    const path = purchase ? '/w/{workspaceId}/x402/credit-purchases/{purchaseId}' : '/w/{workspaceId}/x402/{invoiceId}';
    const item: Record<string, unknown> = {};
    for (const method of ['get', 'post'] as const) {
      const operationId = `x402${method === 'get' ? 'Get' : 'Post'}${purchase ? 'CreditPurchase' : 'Invoice'}`;
      item[method] = operation(order, operationId, method);
      operations.push({ operationId, docs: { errors: order.errors, examples: { response: order.paidExample } } });
    }
    paths[path] = item;
  }
  return { paths, operations };
}

function operation(order: Order, operationId: string, method: 'get' | 'post') {
  const required = paymentRequired(order);
  const paidHeaders = {
    'PAYMENT-RESPONSE': {
      description: 'v2 (after PAYMENT-SIGNATURE): the settlement, base64 JSON.',
      schema: Base64Json('The settlement.', PaymentResponse),
      example: required.paymentResponse,
    },
    'X-PAYMENT-RESPONSE': {
      description: 'v1 (after X-PAYMENT): the same, base64 JSON.',
      schema: Base64Json('The settlement.', PaymentResponse),
    },
  };
  return {
    tags: ['x402'],
    summary:
      order.kind === 'invoice'
        ? `Pay an invoice with x402 (${method.toUpperCase()})`
        : `Pay a credit purchase with x402 (${method.toUpperCase()})`,
    description:
      `The ${order.kind}'s \`url\`: the x402 protocol endpoint, public (the id is the capability), rate-limited per client IP; ` +
      'GET and POST behave the same. Without a payment header it answers 402: the x402 v1 JSON body, and the v2 ' +
      '`PAYMENT-REQUIRED` header with the same requirements. With `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) it checks the ' +
      'signed EIP-3009 authorization (recipient, exact amount, validity window, unused nonce, balance), records the payment, ' +
      'and waits up to 25 s for settlement: 200 with `PAYMENT-RESPONSE` (v2) or `X-PAYMENT-RESPONSE` (v1) once paid; 202 ' +
      'while it is still settling (it finishes anyway: read the order); 402 again, with the reason in `error`, when the payment ' +
      'is malformed or refused or failed (a failed one carries the payment response with `success: false`). An order that ' +
      'cannot take a payment answers its own error. The same payment sent again (the same signed header, or the same ' +
      "payment-identifier of the v2 402's `extensions`) is the same payment: it gets the first one's answer and never " +
      'settles twice; a payment identifier already naming another payment answers 409 `payment_identifier_conflict`. ' +
      'See docs/x402-wire-formats.md.',
    operationId,
    security: [],
    parameters: [
      { name: 'workspaceId', in: 'path', required: true, schema: { type: 'string' }, description: '`ws_…`' },
      order.kind === 'invoice'
        ? { name: 'invoiceId', in: 'path', required: true, schema: { type: 'string' }, description: '`inv_…`' }
        : { name: 'purchaseId', in: 'path', required: true, schema: { type: 'string' }, description: '`cp_…`' },
      ...PAYMENT_HEADERS,
    ],
    responses: {
      200: {
        description: 'Paid: the settlement is in the payment response header.',
        headers: paidHeaders,
        content: { 'application/json': { schema: order.paid } },
      },
      202: {
        description: 'Recorded and still settling after the wait: follow the order until it reads paid.',
        content: { 'application/json': { schema: order.paid } },
      },
      402: {
        description: 'Payment required (no payment header), or the payment was refused or failed (`error` says why).',
        headers: {
          'PAYMENT-REQUIRED': {
            description: 'x402 v2: standard base64 of the requirements (read by `@x402/fetch`).',
            required: true,
            schema: Base64Json('The v2 requirements.', PaymentRequiredV2),
            example: required.v2Header,
          },
        },
        content: {
          'application/json': {
            schema: PaymentRequiredV1,
            examples: {
              required: { summary: 'No payment header yet', value: required.v1Body },
              refused: {
                summary: 'The payment was refused',
                value: { ...required.v1Body, error: `The authorization is not for the exact ${order.kind} amount.` },
              },
            },
          },
        },
      },
      ...Object.fromEntries(
        Object.entries(errorResponses(order.errors)).map(([status]) => [
          status,
          {
            description: 'The one error body of every 4xx and 5xx response.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}

/** The 402 of the example order, written by the functions that write it at run time. */
function paymentRequired(order: Order) {
  const requirement: Requirement = {
    network: BASE_SEPOLIA,
    amount: order.amount,
    payTo: order.payTo,
    asset: USDC,
    maxTimeoutSeconds: 300,
    linkVersion: 1,
  };
  const resource = { url: `${ORIGIN}/w/${EXAMPLE_IDS.workspace}/${order.path}`, description: order.description };
  return {
    v1Body: {
      ...v1PaymentRequired([requirement], resource, 'Payment required'),
      requestId: 'req_01JD6Q5V0KZ7R3X9M2T4B8N1C6',
    },
    v2Header: v2PaymentRequiredHeader([requirement], resource, 'Payment required'),
    paymentResponse: paymentResponseHeader({
      success: true,
      transaction: EXAMPLE_IDS.transaction,
      network: v2NetworkName(BASE_SEPOLIA),
      payer: EXAMPLE_IDS.payer,
    }),
  };
}

export const X402_SCHEMAS = { PaymentRequiredV1, PaymentRequiredV2, PaymentResponse };
