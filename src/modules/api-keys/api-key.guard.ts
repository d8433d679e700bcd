import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.js';
import { httpProcessesOf, RateLimiter, type ProcessCount } from '../../http/rate-limiter.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { Permission } from '../../shared/permissions.js';
import type { ApiKeyService } from './api-key.service.js';

/** What the merchant API's guard calls. */
export interface MerchantApiGuardDeps {
  readonly apiKeys: ApiKeyService;
  readonly config: Pick<Config, 'apiRateLimitPerMinute'>;
  /** The HTTP processes that share the per-key limit; absent: this one alone. */
  readonly processes?: ProcessCount;
}

const KEY_QUERY_NAMES = new Set(['api_key', 'apikey', 'apiKey', 'key', 'token', 'access_token', 'authorization']);

/**
 * Guards every route registered inside the merchant API scope (`/w/:workspaceId/v1`): Bearer key of
 * that workspace, per-key rate limit, then the route's declared permission. Runs before body parsing,
 * so an unauthenticated caller learns nothing about validation.
 */
export function guardMerchantApi(app: FastifyInstance, services: MerchantApiGuardDeps): void {
  // Per key, and shared with the other HTTP processes: each allows its share.
  const limiter = new RateLimiter(services.config.apiRateLimitPerMinute, { sharedBy: httpProcessesOf(services) });

  app.addHook('onRoute', (route) => {
    if (!route.config?.permission)
      throw new Error(`merchant API route ${route.method} ${route.url} declares no permission`);
  });

  app.addHook('onRequest', async (request) => {
    refuseKeyInQuery(request);
    const header = request.headers.authorization;
    if (!header) throw new AppError('missing_api_key', 'Send your API key as "Authorization: Bearer isk_…".');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw new AppError('invalid_api_key', 'The Authorization header must be "Bearer <API key>".');
    const { workspaceId } = request.params as { workspaceId: WorkspaceId };
    const principal = await services.apiKeys.authenticate(workspaceId, match[1], request.ip);
    const retryAfter = limiter.take(principal.keyId);
    if (retryAfter > 0) {
      throw new AppError('rate_limited', 'Too many requests with this API key. Retry after the delay in Retry-After.', {
        retryAfterSeconds: retryAfter,
      });
    }
    const required = ([] as Permission[]).concat(request.routeOptions.config.permission ?? []);
    const missing = required.filter((permission) => !principal.permissions.has(permission));
    if (required.length === 0 || missing.length > 0) {
      throw new AppError('permission_denied', `This API key lacks the ${missing.join(' and ')} permission.`);
    }
    request.apiKey = principal;
    request.principal = { workspaceId: principal.workspaceId, via: 'api' };
  });
}

/**
 * The merchant API also refuses the parameter names a key would travel under, whatever their value (a
 * value that looks like a key is refused on every route by the input guard).
 */
function refuseKeyInQuery(request: FastifyRequest): void {
  for (const name of Object.keys(request.query as Record<string, unknown>)) {
    if (KEY_QUERY_NAMES.has(name)) {
      throw new AppError(
        'api_key_in_query',
        'API keys are accepted only in the Authorization header, never in the URL. A key sent in a URL may be exposed in logs: revoke it and create a new one.',
      );
    }
  }
}
