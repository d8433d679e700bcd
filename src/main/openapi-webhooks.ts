import { Type, type TSchema } from '@sinclair/typebox';
import { EVENT_EXAMPLES, EXAMPLE_WORKSPACE_ID, WEBHOOK_EVENT_TYPES } from '../modules/events/index.js';
import { InvoiceView } from '../modules/invoices/index.js';
import { PaymentIntentView } from '../modules/payment-views/index.js';
import { TEST_EVENT_TYPE, signedHeaders, webhookBody } from '../modules/webhooks/index.js';
import { Timestamp } from '../http/common.schemas.js';

/**
 * The document's `webhooks`: one POST per kind the service sends to the workspace's endpoint, with the
 * body (the feed's event, `workspaceId` and `test` added: webhookBody) and the signature headers. The
 * example's headers are signed by the delivery's own signer with the secret named below, so a receiver
 * can test its verification against them.
 */

const EXAMPLE_SECRET = 'whsec_example-secret-for-the-api-document';

const InvoiceEventRef = Type.Object({
  id: Type.String(),
  number: Type.String(),
  externalId: Type.Union([Type.String(), Type.Null()]),
});

/** The `data` of each kind a webhook carries: the API's own shapes, as the feed stores them. */
const DATA: Readonly<Record<string, TSchema>> = {
  'payment_intent.succeeded': Type.Object({
    paymentIntent: PaymentIntentView,
    invoice: Type.Optional(InvoiceEventRef),
  }),
  'payment_intent.reverted': Type.Object({
    paymentIntent: PaymentIntentView,
    invoice: Type.Optional(InvoiceEventRef),
  }),
  'invoice.scheduled': Type.Object({
    invoice: InvoiceView,
    automationId: Type.String({ description: 'The automation (`aut_…`) that created the invoice.' }),
    occurrence: Type.Integer({ minimum: 1, description: 'Which of its occurrences.' }),
  }),
  [TEST_EVENT_TYPE]: Type.Object({}, { additionalProperties: false, description: 'Empty: a test creates nothing.' }),
};

const WHEN: Readonly<Record<string, string>> = {
  'payment_intent.succeeded':
    'A payment was confirmed. Before fulfilling, read GET /payment-intents/{paymentIntentId} and match status, amount, recipient and invoice.',
  'payment_intent.reverted':
    'A confirmed payment was taken out of the chain by a reorganisation before it was final: the invoice is payable again (or expired). Not in the specification: a receiver that follows it ignores this kind; one that fulfilled the order must hold or undo it.',
  'invoice.scheduled': 'An automation created an invoice for one of its occurrences. Not proof of payment.',
  [TEST_EVENT_TYPE]:
    'POST /webhook/test: `test` is true and `id` starts with `test_`. Acknowledge it without issuing goods; never retried.',
};

export function webhookEvents(): Record<string, unknown> {
  const kinds = [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE];
  return Object.fromEntries(kinds.map((kind) => [kind, { post: webhookOperation(kind) }]));
}

function webhookOperation(kind: string) {
  const test = kind === TEST_EVENT_TYPE;
  const example = exampleBody(kind);
  const raw = JSON.stringify(example);
  const headers = signedHeaders(EXAMPLE_SECRET, example.id, raw, new Date(example.createdAt));
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
    example: headers[name.toLowerCase()],
  });
  return {
    tags: ['Webhooks'],
    summary: kind,
    description:
      `${WHEN[kind] ?? ''} Sent to the workspace's endpoint (PUT /webhook), at least once: deduplicate by \`id\`. ` +
      'To verify: read the raw body, refuse a timestamp outside your clock skew, compare in constant time the hex after `v1=` ' +
      'with HMAC-SHA256(signing secret, "<X-Payment-Timestamp>.<raw body>") — the receiver verification steps of the ' +
      `specification's Events section. The example is signed with the secret \`${EXAMPLE_SECRET}\`.`,
    operationId: `webhook${kind.replace(/(^|[._])([a-z])/g, (_, _sep: string, letter: string) => letter.toUpperCase())}`,
    security: [],
    parameters: [
      header('X-Payment-Event-ID', 'Equals the body `id`: a decimal event id (tenant-local), or `test_…`.'),
      header('X-Payment-Timestamp', 'Unix seconds of this attempt; a retry has a new one.'),
      header(
        'X-Payment-Signature',
        '`v1=` and the hex HMAC-SHA256 of `<timestamp>.<raw body>` with the signing secret.',
      ),
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: Type.Object({
            id: Type.String({ description: 'The event id, as in the feed (GET /changes); `test_…` for a test.' }),
            type: Type.Literal(kind),
            workspaceId: Type.String({ description: 'The tenant: check it is your workspace.' }),
            createdAt: Timestamp,
            test: Type.Boolean({ description: test ? 'Always true.' : 'Always false.' }),
            data: DATA[kind] ?? Type.Unknown(),
          }),
          examples: { example: { summary: kind, value: example } },
        },
      },
    },
    responses: {
      200: {
        description:
          'Any 2xx acknowledges the delivery. Persist the event id and queue the work first: the 8 s timeout counts.',
      },
      '4XX': {
        description:
          'Any other answer (redirects included) or none within 8 s is a failed attempt, retried with backoff (tests are not retried).',
      },
    },
  };
}

function exampleBody(kind: string) {
  if (kind === TEST_EVENT_TYPE)
    return webhookBody(EXAMPLE_WORKSPACE_ID, {
      id: 'test_01jd6s4k9m2x7t1v5c3n8b0q6z',
      type: kind,
      at: new Date('2026-11-14T09:00:00.000Z'),
      data: {},
      test: true,
    });
  const event: { id: string; type: string; createdAt: string; data: unknown } | undefined =
    EVENT_EXAMPLES[kind as keyof typeof EVENT_EXAMPLES];
  // A kind without an example still gets its entry; the API document test names the missing example.
  if (!event) return webhookBody(EXAMPLE_WORKSPACE_ID, { id: '1', type: kind, at: new Date(0), data: {} });
  return webhookBody(EXAMPLE_WORKSPACE_ID, {
    id: event.id,
    type: event.type,
    at: new Date(event.createdAt),
    data: event.data,
  });
}
