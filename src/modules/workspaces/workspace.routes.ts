import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import type { Workspace } from './workspace.js';
import { CreateWorkspaceBody, WorkspaceView } from './workspace.schemas.js';

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
  };
}

export function present(workspace: Workspace) {
  return { ...workspace, createdAt: workspace.createdAt.toISOString() };
}
