import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { WorkspaceParams, errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import { presentWorkspace } from './workspace.present.js';
import { UpdateWorkspaceBody, WorkspaceView } from './workspace.schemas.js';

/** Merchant API: the workspace's public profile, shown to buyers on the checkout page. */
export function workspaceRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.put(
      '/workspace',
      {
        config: { permission: 'settings:write' },
        schema: {
          tags: ['Workspace'],
          summary: 'Set the workspace name and description',
          description: 'Shown on the checkout page. The description is limited to 2048 UTF-8 bytes.',
          security: BEARER_SECURITY,
          params: WorkspaceParams,
          body: UpdateWorkspaceBody,
          response: { 200: WorkspaceView, ...errors(400, 401, 403, 429) },
        },
      },
      async (request) =>
        presentWorkspace(await services.workspaces.update(request.principal!.workspaceId, request.body, 'api')),
    );
  };
}
