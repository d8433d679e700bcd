import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import type { ApiKeyId, WorkspaceId } from '../../shared/ids.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import type { Permission, ApiKeyView as View } from './api-key.js';
import { ApiKeyParams, ApiKeyView, CreateApiKeyBody, CreatedApiKey } from './api-key.schemas.js';

const tags = ['Portal'];

export function apiKeyRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = (wallet: Parameters<Services['workspaces']['getOwned']>[0], workspaceId: string) =>
    services.workspaces.getOwned(wallet, workspaceId as WorkspaceId);

  return async (app) => {
    app.get(
      '/w/:workspaceId/keys',
      { schema: { tags, summary: 'List API keys', params: PortalWorkspaceParams, response: { 200: Type.Object({ keys: Type.Array(ApiKeyView) }), ...errors(401, 404) } } },
      async (request) => {
        const workspace = await owned(request.portalSession!.wallet, request.params.workspaceId);
        return { keys: (await services.apiKeys.list(workspace.id)).map(present) };
      },
    );

    app.post(
      '/w/:workspaceId/keys',
      {
        schema: {
          tags,
          summary: 'Create an API key',
          description: 'At most 5 active keys per workspace; at most 3 creations per hour and 10 per day. The secret is in this response only.',
          params: PortalWorkspaceParams,
          body: CreateApiKeyBody,
          response: { 201: CreatedApiKey, ...errors(400, 401, 403, 404, 409, 429) },
        },
      },
      async (request, reply) => {
        const workspace = await owned(request.portalSession!.wallet, request.params.workspaceId);
        // The schema admits only permission names.
        const permissions = request.body.permissions as Permission[];
        const { key, secret } = await services.apiKeys.create(workspace.id, { name: request.body.name, permissions });
        reply.header('Cache-Control', 'no-store');
        return reply.code(201).send({ ...present(key), secret });
      },
    );

    app.delete(
      '/w/:workspaceId/keys/:keyId',
      { schema: { tags, summary: 'Revoke an API key', params: ApiKeyParams, response: { 200: ApiKeyView, ...errors(401, 403, 404) } } },
      async (request) => {
        const workspace = await owned(request.portalSession!.wallet, request.params.workspaceId);
        return present(await services.apiKeys.revoke(workspace.id, request.params.keyId as ApiKeyId));
      },
    );
  };
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
