import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkspaceParams, errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import { DeliveryView, RetryBody, TestResult, WebhookSettingsBody, WebhookSettingsView, WebhookView } from './webhook.schemas.js';

const SIGNING = [
  'Each request is a POST of JSON `{"id","type","workspaceId","createdAt","test","data"}` with headers `X-Payment-Event-ID` (= `id`), ',
  '`X-Payment-Timestamp` (unix seconds of this attempt) and `X-Payment-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>`. ',
  'Only a 2xx acknowledges; redirects are failures; 8 s timeout; retries keep the event id with a new timestamp and signature. ',
  'Kinds: `payment_intent.succeeded` (fulfil after re-reading GET /payment-intents/{id}), `invoice.scheduled`, `webhook.test`. ',
  'See examples/webhook-receiver for a receiver that does every check.',
].join('');

export function webhookRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/webhook',
      {
        config: { permission: 'webhooks:read' },
        schema: {
          tags: ['Webhooks'],
          summary: 'Webhook endpoint, recent deliveries and attempts',
          description: `Never shows the secret, a response body or a header. ${SIGNING}`,
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          response: { 200: WebhookView, ...errors(401, 403, 429) },
        },
      },
      async (request) => services.webhooks.view(request.apiKey!.workspaceId),
    );

    app.put(
      '/webhook',
      {
        config: { permission: 'webhooks:write', fieldErrorCodes: { endpoint: 'invalid_webhook_endpoint' } },
        schema: {
          tags: ['Webhooks'],
          summary: 'Set the endpoint, pause or resume, rotate the secret',
          description:
            'The first call needs `endpoint` and answers with the signing `secret` (shown once). `rotate: true` answers with a new secret and pauses ' +
            'delivery; update the receiver, then send `enabled: true`: the events queued meanwhile are delivered.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          body: WebhookSettingsBody,
          response: { 200: WebhookSettingsView, ...errors(400, 401, 403, 409, 429) },
        },
      },
      async (request) => services.webhooks.configure(request.apiKey!.workspaceId, request.body),
    );

    app.post(
      '/webhook/retry',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags: ['Webhooks'],
          summary: 'Retry a delivery now',
          description: 'Sends the event again as soon as a worker takes it, with a fresh retry window. Also sends a retained webhook event that was never delivered.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          body: RetryBody,
          response: { 200: DeliveryView, ...errors(400, 401, 403, 404, 409, 429) },
        },
      },
      async (request) => services.webhooks.retry(request.apiKey!.workspaceId, String(request.body.eventId)),
    );

    app.post(
      '/webhook/test',
      {
        config: { permission: 'webhooks:write' },
        schema: {
          tags: ['Webhooks'],
          summary: 'Send a signed test event',
          description: 'Sends `webhook.test` (id `test_…`, `test: true`) now and answers with the outcome. One a minute per workspace; never retried; no credits.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          response: { 200: TestResult, ...errors(401, 403, 409, 429) },
        },
      },
      async (request) => services.webhooks.sendTest(request.apiKey!.workspaceId),
    );
  };
}
