import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Hex } from 'viem';
import { errors } from '../../http/common.schemas.js';
import { SESSION_COOKIE } from '../../http/portal-guards.js';
import type { Services } from '../../http/services.js';
import { AppError } from '../../shared/errors.js';
import { NonceResponse, SessionResponse, VerifyBody } from './auth.schemas.js';

const tags = ['Wallet sign-in'];

export function authRoutes(services: Services): FastifyPluginAsyncTypebox {
  const secure = services.config.publicBaseUrl.protocol === 'https:';
  return async (app) => {
    app.get(
      '/nonce',
      {
        schema: {
          tags,
          summary: 'Issue a sign-in nonce',
          description: `At most ${services.config.nonceRateLimitPerMinute} a minute per client IP; above it: 429 with Retry-After.`,
          response: { 200: NonceResponse, ...errors(429) },
        },
      },
      async (request, reply) => {
        reply.header('Cache-Control', 'no-store');
        return { nonce: await services.auth.issueNonce(request.ip) };
      },
    );

    app.post(
      '/verify',
      {
        schema: {
          tags,
          summary: 'Sign in with a signed EIP-4361 message',
          description: 'Sets an HttpOnly session cookie. Requires the Origin header of this service.',
          body: VerifyBody,
          response: { 200: SessionResponse, ...errors(400, 401, 403) },
        },
      },
      async (request, reply) => {
        const session = await services.auth.signIn(request.body.message, request.body.signature as Hex);
        reply.setCookie(SESSION_COOKIE, session.token, {
          path: '/',
          httpOnly: true,
          sameSite: 'lax',
          secure,
          expires: session.expiresAt,
        });
        return { address: session.wallet, expiresAt: session.expiresAt.toISOString() };
      },
    );

    app.post(
      '/logout',
      { schema: { tags, summary: 'Sign out', response: { 204: Type.Null(), ...errors(403) } } },
      async (request, reply) => {
        const token = request.cookies[SESSION_COOKIE];
        if (token) await services.auth.signOut(token);
        reply.clearCookie(SESSION_COOKIE, { path: '/' });
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/session',
      { schema: { tags, summary: 'The signed-in wallet', response: { 200: SessionResponse, ...errors(401) } } },
      async (request) => {
        const token = request.cookies[SESSION_COOKIE];
        const session = token ? await services.auth.session(token) : undefined;
        if (!session) throw new AppError('session_required', 'Not signed in.');
        return { address: session.wallet, expiresAt: session.expiresAt.toISOString() };
      },
    );
  };
}
