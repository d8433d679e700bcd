import { Type } from '@sinclair/typebox';
import { WorkspaceParams } from '../../http/common.schemas.js';
import type { ApiKeyService } from './api-key.service.js';
import { portalRoute, type WorkspaceRoute } from '../../http/workspace-route.js';
import type { ApiKeyId } from '../../shared/ids.js';
import type { Permission, ApiKeyView as View } from './api-key.js';
import { ApiKeyParams, ApiKeyView, CreateApiKeyBody, CreatedApiKey } from './api-key.schemas.js';
import { apiKeyExamples } from './api-key.examples.js';

/** What these routes call. */
export interface ApiKeyRouteDeps {
  readonly apiKeys: ApiKeyService;
}

/** API keys are managed by the workspace's wallet in the portal, never with another key. */
export function apiKeyPortalRoutes(services: ApiKeyRouteDeps): WorkspaceRoute[] {
  return [
    portalRoute({
      method: 'GET',
      url: '/keys',
      schema: {
        summary: 'List API keys',
        params: WorkspaceParams,
        response: { 200: Type.Object({ keys: Type.Array(ApiKeyView) }) },
      },
      errors: [],
      examples: apiKeyExamples.list,
      handler: async (request) => ({
        keys: (await services.apiKeys.list(request.principal!.workspaceId)).map(present),
      }),
    }),

    portalRoute({
      method: 'POST',
      url: '/keys',
      schema: {
        summary: 'Create an API key',
        description:
          'At most 5 active keys per workspace; at most 3 creations per hour and 10 per day. The secret is in this response only.',
        params: WorkspaceParams,
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKey },
      },
      errors: [
        'invalid_request',
        'unknown_field',
        'invalid_json',
        'key_recipient_mismatch',
        'api_key_limit_reached',
        'api_key_creation_rate_limited',
      ],
      examples: apiKeyExamples.create,
      example: { body: { name: 'server', permissions: ['invoices:read'] } },
      handler: async (request, reply) => {
        // The schema admits only permission names.
        const permissions = request.body.permissions as Permission[];
        const { key, secret } = await services.apiKeys.create(request.principal!.workspaceId, {
          name: request.body.name,
          permissions,
          ...(request.body.recipient !== undefined && { recipient: request.body.recipient }),
        });
        reply.header('Cache-Control', 'no-store');
        return reply.code(201).send({ ...present(key), secret });
      },
    }),

    portalRoute({
      method: 'DELETE',
      url: '/keys/:keyId',
      schema: { summary: 'Revoke an API key', params: ApiKeyParams, response: { 200: ApiKeyView } },
      errors: [],
      examples: apiKeyExamples.revoke,
      handler: async (request) =>
        present(await services.apiKeys.revoke(request.principal!.workspaceId, request.params.keyId as ApiKeyId)),
    }),
  ];
}

function present(key: View) {
  return {
    ...key,
    permissions: [...key.permissions],
    status: key.revokedAt ? ('revoked' as const) : ('active' as const),
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    revokedAt: key.revokedAt?.toISOString() ?? null,
  };
}
