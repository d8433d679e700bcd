import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errors } from '../../http/common.schemas.js';
import type { Services } from '../../http/services.js';
import { ownedWorkspace } from '../workspaces/owned-workspace.js';
import { PortalWorkspaceParams } from '../workspaces/workspace.schemas.js';
import { IssuesView } from './health.schemas.js';

/** The issues the portal shows above everything else: GET /issues under the wallet session. */
export function healthPortalRoutes(services: Services): FastifyPluginAsyncTypebox {
  const owned = ownedWorkspace(services);
  return async (app) => {
    app.get(
      '/w/:workspaceId/issues',
      {
        schema: {
          tags: ['Portal'],
          summary: 'Open workspace issues and what to do about them',
          description: 'As GET /issues: most severe first, at most one per kind; empty when all is well.',
          params: PortalWorkspaceParams,
          response: { 200: IssuesView, ...errors(401, 404) },
        },
      },
      async (request) => services.health.issues(await owned(request, request.params.workspaceId)),
    );
  };
}
