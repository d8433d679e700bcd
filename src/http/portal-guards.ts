import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';

export const SESSION_COOKIE = 'invoice_session';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CSRF defence by standard headers: a state-changing browser request carries `Origin`, and it must be
 * this service's own origin. Requests without it are refused too.
 */
export function guardOrigin(app: FastifyInstance, expected: string): void {
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
