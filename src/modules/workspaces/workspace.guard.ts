import type { FastifyInstance } from 'fastify';
import type { WorkspaceId } from '../../shared/ids.js';
import type { WorkspaceService } from './workspace.service.js';

/**
 * The one ownership check of the portal, for the `/portal/api/w/:workspaceId` scope (inside
 * requireSession): the signed-in wallet must own the workspace of the URL. Someone else's workspace and
 * none at all both answer not_found, so a guessed id reveals nothing. It runs before the body is parsed
 * or validated, so a stranger learns nothing about the route either.
 */
export function requireOwnedWorkspace(app: FastifyInstance, workspaces: Pick<WorkspaceService, 'getOwned'>): void {
  app.addHook('onRequest', async (request) => {
    const { workspaceId } = request.params as { workspaceId: string };
    const workspace = await workspaces.getOwned(request.portalSession!.wallet, workspaceId as WorkspaceId);
    request.principal = { workspaceId: workspace.id, via: 'portal' };
  });
}
