import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';
import type { WorkspaceId } from '../shared/ids.js';
import type { Services } from './services.js';

export const SESSION_COOKIE = 'invoice_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence by standard headers: a state-changing browser request carries `Origin`, and it must be
 * this service's own origin. Requests without it are refused too.
 */
export function guardOrigin(app: FastifyInstance, services: Services): void {
  const expected = services.config.publicBaseUrl.origin;
  app.addHook('onRequest', async (request) => {
    if (SAFE_METHODS.has(request.method)) return;
    if (request.headers.origin !== expected) {
      throw new AppError(
        'origin_mismatch',
        `Portal changes must come from ${expected} (the Origin header did not match).`,
      );
    }
  });
}

/** Every portal API route needs a signed-in wallet. */
export function requireSession(app: FastifyInstance, services: Services): void {
  app.addHook('onRequest', async (request) => {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await services.auth.session(token) : undefined;
    if (!session)
      throw new AppError(
        'session_required',
        'Sign in with your wallet first (GET /auth/nonce, then POST /auth/verify).',
      );
    request.portalSession = session;
  });
}

/**
 * The one ownership check of the portal, for the `/portal/api/w/:workspaceId` scope (inside
 * requireSession): the signed-in wallet must own the workspace of the URL. Someone else's workspace and
 * none at all both answer not_found, so a guessed id reveals nothing. It runs before the body is parsed
 * or validated, so a stranger learns nothing about the route either.
 */
export function requireOwnedWorkspace(app: FastifyInstance, services: Services): void {
  app.addHook('onRequest', async (request) => {
    const { workspaceId } = request.params as { workspaceId: string };
    const workspace = await services.workspaces.getOwned(request.portalSession!.wallet, workspaceId as WorkspaceId);
    request.principal = { workspaceId: workspace.id, via: 'portal' };
  });
}
