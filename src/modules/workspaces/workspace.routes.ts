import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { WorkspaceParams, errors } from '../../http/common.schemas.js';
import { BEARER_SECURITY } from '../../http/merchant-api.js';
import type { Services } from '../../http/services.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { Workspace } from './workspace.js';
import { CreateWorkspaceBody, PortalWorkspaceParams, UpdateWorkspaceBody, WorkspaceView } from './workspace.schemas.js';

const tags = ['Portal'];

export function workspaceRoutes(services: Services): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/workspaces',
      { schema: { tags, summary: "List the signed-in wallet's workspaces", response: { 200: Type.Object({ workspaces: Type.Array(WorkspaceView) }), ...errors(401) } } },
      async (request) => ({ workspaces: (await services.workspaces.listOwnedBy(request.portalSession!.wallet)).map(present) }),
    );

    app.post(
      '/workspaces',
      {
        schema: {
          tags,
          summary: 'Create a workspace',
          description: 'The signed-in wallet becomes its one receiving address. New workspaces get the configured credit grant.',
          body: CreateWorkspaceBody,
          response: { 201: WorkspaceView, ...errors(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const workspace = await services.workspaces.create(request.portalSession!.wallet, request.body);
        return reply.code(201).send(present(workspace));
      },
    );

    app.patch(
      '/w/:workspaceId',
      {
        schema: {
          tags,
          summary: 'Change the workspace name or description',
          description: 'The description is limited to 500 characters here.',
          params: PortalWorkspaceParams,
          body: UpdateWorkspaceBody,
          response: { 200: WorkspaceView, ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const workspace = await services.workspaces.getOwned(request.portalSession!.wallet, request.params.workspaceId as WorkspaceId);
        return present(await services.workspaces.update(workspace.id, request.body, 'portal'));
      },
    );
  };
}

/** Merchant API: the workspace's public profile, shown to buyers on the checkout page. */
export function workspaceApiRoutes(services: Services): FastifyPluginAsyncTypebox {
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
      async (request) => present(await services.workspaces.update(request.apiKey!.workspaceId, request.body, 'api')),
    );
  };
}

export function present(workspace: Workspace) {
  return { ...workspace, createdAt: workspace.createdAt.toISOString() };
}
