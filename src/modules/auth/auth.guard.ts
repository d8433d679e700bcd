import type { FastifyInstance } from 'fastify';
import { SESSION_COOKIE } from '../../http/portal-guards.js';
import { AppError } from '../../shared/errors.js';
import type { AuthService } from './auth.service.js';

/** Every portal API route needs a signed-in wallet. */
export function requireSession(app: FastifyInstance, auth: Pick<AuthService, 'session'>): void {
  app.addHook('onRequest', async (request) => {
    const token = request.cookies[SESSION_COOKIE];
    const session = token ? await auth.session(token) : undefined;
    if (!session)
      throw new AppError(
        'session_required',
        'Sign in with your wallet first (GET /auth/nonce, then POST /auth/verify).',
      );
    request.portalSession = session;
  });
}
