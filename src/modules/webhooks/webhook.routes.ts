import { WorkspaceParams } from '../../http/common.schemas.js';
import type { WebhookEndpointService } from '../webhook-endpoint/index.js';
import type { WebhookService } from './webhook.service.js';
import { sharedRoute, type SharedRoute } from '../../http/workspace-route.js';
import {
  DeliveryView,
  RetryBody,
  TestResult,
  WebhookSettingsBody,
  WebhookSettingsView,
  WebhookView,
} from './webhook.schemas.js';
import { webhookExamples } from './webhook.examples.js';

/** What these routes call. */
export interface WebhookRouteDeps {
  readonly webhooks: WebhookService;
  readonly webhookEndpoint: WebhookEndpointService;
}

const SIGNING = [
  'Each request is a POST of JSON `{"id","type","workspaceId","createdAt","test","data"}` with headers `X-Payment-Event-ID` (= `id`), ',
  '`X-Payment-Timestamp` (unix seconds of this attempt) and `X-Payment-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`. ',
  'Only a 2xx acknowledges; redirects are failures; 8 s timeout; retries keep the event id with a new timestamp and signature. ',
  'Kinds: `payment_intent.succeeded` (fulfil after re-reading GET /payment-intents/{id}), `invoice.scheduled`, `webhook.test`. ',
  'See examples/webhook-receiver for a receiver that does every check.',
].join('');

const tags = ['Webhooks'];

/** The webhook endpoint: the API, and the webhook card of the portal's API tab. */
export function webhookRoutes(services: WebhookRouteDeps): SharedRoute[] {
  return [
    sharedRoute({
      method: 'GET',
      url: '/webhook',
      permission: 'webhooks:read',
      schema: {
        tags,
        summary: 'Webhook endpoint, recent deliveries and attempts',
        description: `Never shows the secret, a response body or a header. ${SIGNING}`,
        params: WorkspaceParams,
        response: { 200: WebhookView },
      },
      errors: [],
      examples: webhookExamples.get,
      portal: { description: 'As GET /webhook: never a secret, a response body or a header.' },
      handler: async (request) => services.webhooks.view(request.principal!.workspaceId),
    }),

    sharedRoute({
      method: 'PUT',
      url: '/webhook',
      permission: 'webhooks:write',
      fieldErrorCodes: { endpoint: 'invalid_webhook_endpoint' },
      schema: {
        tags,
        summary: 'Set the endpoint, pause or resume, rotate the secret',
        description:
          'The first call needs `endpoint` and answers with the signing `secret` (shown once). `rotate: true` answers with a new secret and pauses ' +
          'delivery; update the receiver, then send `enabled: true`: the events queued meanwhile are delivered.',
        params: WorkspaceParams,
        body: WebhookSettingsBody,
        response: { 200: WebhookSettingsView },
      },
      errors: [
        'invalid_request',
        'unknown_field',
        'invalid_json',
        'invalid_webhook_endpoint',
        'webhook_not_configured',
      ],
      examples: webhookExamples.configure,
      portal: {
        description:
          'As PUT /webhook: the secret is in the answer only when it was created or rotated (rotation pauses delivery).',
      },
      example: { body: { enabled: false } },
      handler: async (request, reply) => {
        const settings = await services.webhookEndpoint.configure(request.principal!.workspaceId, request.body);
        // The answer may carry the signing secret: no cache may keep it.
        reply.header('Cache-Control', 'no-store');
        return settings;
      },
    }),

    sharedRoute({
      method: 'POST',
      url: '/webhook/retry',
      permission: 'webhooks:write',
      schema: {
        tags,
        summary: 'Retry a delivery now',
        description:
          'Sends the event again as soon as a worker takes it, with a fresh retry window. Also sends a retained webhook event that was never delivered.',
        params: WorkspaceParams,
        body: RetryBody,
        response: { 200: DeliveryView },
      },
      errors: [
        'invalid_request',
        'unknown_field',
        'invalid_json',
        'not_found',
        'delivery_already_succeeded',
        'webhook_not_configured',
      ],
      examples: webhookExamples.retry,
      portal: {
        description: 'As POST /webhook/retry: a fresh retry window; 409 when the receiver already acknowledged it.',
      },
      example: { body: { eventId: '1' } },
      handler: async (request) => services.webhooks.retry(request.principal!.workspaceId, String(request.body.eventId)),
    }),

    sharedRoute({
      method: 'POST',
      url: '/webhook/test',
      permission: 'webhooks:write',
      schema: {
        tags,
        summary: 'Send a signed test event',
        description:
          'Sends `webhook.test` (id `test_…`, `test: true`) now and answers with the outcome. One a minute per workspace; never retried; no credits.',
        params: WorkspaceParams,
        response: { 200: TestResult },
      },
      errors: ['webhook_not_configured', 'webhook_test_rate_limited'],
      examples: webhookExamples.test,
      portal: { description: 'As POST /webhook/test: one a minute per workspace, never retried, no credits.' },
      handler: async (request) => services.webhooks.sendTest(request.principal!.workspaceId),
    }),
  ];
}
