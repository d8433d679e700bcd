import type { FastifyRequest } from 'fastify';
import type { Services } from '../../http/services.js';
import type { WorkspaceId } from '../../shared/ids.js';

/**
 * For portal routes (inside the `/portal/api` scope, where requireSession has set the session): the
 * workspace id of the URL when the signed-in wallet owns it. Any other workspace — someone else's or
 * none — is not_found, so a guessed id reveals nothing. Call it before any other work.
 */
export function ownedWorkspace(services: Services) {
  return async (request: FastifyRequest, workspaceId: string): Promise<WorkspaceId> =>
    (await services.workspaces.getOwned(request.portalSession!.wallet, workspaceId as WorkspaceId)).id;
}
