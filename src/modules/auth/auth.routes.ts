import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Hex } from 'viem';
import { errorResponses } from '../../http/error-examples.js';
import type { OperationDocs } from '../../http/openapi-examples.js';
import { SESSION_COOKIE } from '../../http/portal-guards.js';
import type { AuthService } from './auth.service.js';
import type { Config } from '../../config/config.js';
import { AppError } from '../../shared/errors.js';
import { NonceResponse, SessionResponse, VerifyBody } from './auth.schemas.js';
import { authExamples } from './auth.examples.js';

/** What these routes call. */
export interface AuthRouteDeps {
  readonly auth: AuthService;
  readonly config: Pick<Config, 'publicBaseUrl' | 'nonceRateLimitPerMinute'>;
}

const tags = ['Wallet sign-in'];

const NONCE_DOCS: OperationDocs = { errors: ['rate_limited'], examples: authExamples.nonce };
const VERIFY_DOCS: OperationDocs = {
  errors: [
    'invalid_request',
    'unknown_field',
    'invalid_json',
    'invalid_siwe_message',
    'siwe_domain_mismatch',
    'siwe_uri_mismatch',
    'siwe_chain_not_supported',
    'siwe_nonce_invalid',
    'siwe_expired',
    'siwe_not_yet_valid',
    'siwe_signature_invalid',
    'origin_mismatch',
  ],
  examples: authExamples.verify,
};
const LOGOUT_DOCS: OperationDocs = { errors: ['origin_mismatch'], examples: authExamples.logout };
const SESSION_DOCS: OperationDocs = { errors: ['session_required'], examples: authExamples.session };

export function authRoutes(services: AuthRouteDeps): FastifyPluginAsyncTypebox {
  const secure = services.config.publicBaseUrl.protocol === 'https:';
  return async (app) => {
    app.get(
      '/nonce',
      {
        config: { docs: NONCE_DOCS },
        schema: {
          tags,
          summary: 'Issue a sign-in nonce',
          description: `At most ${services.config.nonceRateLimitPerMinute} a minute per client IP; above it: 429 with Retry-After.`,
          response: { 200: NonceResponse, ...errorResponses(NONCE_DOCS.errors) },
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
        config: { docs: VERIFY_DOCS },
        schema: {
          tags,
          summary: 'Sign in with a signed EIP-4361 message',
          description: 'Sets an HttpOnly session cookie. Requires the Origin header of this service.',
          body: VerifyBody,
          response: { 200: SessionResponse, ...errorResponses(VERIFY_DOCS.errors) },
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
      {
        config: { docs: LOGOUT_DOCS },
        schema: { tags, summary: 'Sign out', response: { 204: Type.Null(), ...errorResponses(LOGOUT_DOCS.errors) } },
      },
      async (request, reply) => {
        const token = request.cookies[SESSION_COOKIE];
        if (token) await services.auth.signOut(token);
        reply.clearCookie(SESSION_COOKIE, { path: '/' });
        return reply.code(204).send(null);
      },
    );

    app.get(
      '/session',
      {
        config: { docs: SESSION_DOCS },
        schema: {
          tags,
          summary: 'The signed-in wallet',
          response: { 200: SessionResponse, ...errorResponses(SESSION_DOCS.errors) },
        },
      },
      async (request) => {
        const token = request.cookies[SESSION_COOKIE];
        const session = token ? await services.auth.session(token) : undefined;
        if (!session) throw new AppError('session_required', 'Not signed in.');
        return { address: session.wallet, expiresAt: session.expiresAt.toISOString() };
      },
    );
  };
}
