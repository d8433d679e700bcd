import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { DeliveryView, RetryBody, TestResult, WebhookSettingsBody, WebhookSettingsView, WebhookView } from './webhook.schemas.js';

const tags = ['Portal'];

/** The webhook card of the portal's API tab: the merchant API's webhook use cases under the wallet session. */
export function webhookPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/webhook',
      {
        schema: {
          tags,
          summary: 'Webhook endpoint, recent deliveries and attempts',
          description: 'As GET /webhook: never a secret, a response body or a header.',
          params: PortalWorkspaceParams,
          response: { 200: WebhookView, ...errors(401, 404) },
        },
      },
      async (request) => services.webhooks.view(await owned(request, request.params.workspaceId)),
    );

    app.put(
      '/w/:workspaceId/webhook',
      {
        config: { fieldErrorCodes: { endpoint: 'invalid_webhook_endpoint' } },
        schema: {
          tags,
          summary: 'Set the endpoint, pause or resume, rotate the secret',
          description: 'As PUT /webhook: the secret is in the answer only when it was created or rotated (rotation pauses delivery).',
          params: PortalWorkspaceParams,
          body: WebhookSettingsBody,
          response: { 200: WebhookSettingsView, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request, reply) => {
        const settings = await services.webhooks.configure(await owned(request, request.params.workspaceId), request.body);
        // The answer may carry the signing secret: no cache may keep it.
        reply.header('Cache-Control', 'no-store');
        return settings;
      },
    );

    app.post(
      '/w/:workspaceId/webhook/test',
      {
        schema: {
          tags,
          summary: 'Send a signed test event',
          description: 'As POST /webhook/test: one a minute per workspace, never retried, no credits.',
          params: PortalWorkspaceParams,
          response: { 200: TestResult, ...errors(401, 403, 404, 409, 429) },
        },
      },
      async (request) => services.webhooks.sendTest(await owned(request, request.params.workspaceId)),
    );

    app.post(
      '/w/:workspaceId/webhook/retry',
      {
        schema: {
          tags,
          summary: 'Retry a delivery now',
          description: 'As POST /webhook/retry: a fresh retry window; 409 when the receiver already acknowledged it.',
          params: PortalWorkspaceParams,
          body: RetryBody,
          response: { 200: DeliveryView, ...errors(400, 401, 403, 404, 409) },
        },
      },
      async (request) => services.webhooks.retry(await owned(request, request.params.workspaceId), String(request.body.eventId)),
    );
  };
}
