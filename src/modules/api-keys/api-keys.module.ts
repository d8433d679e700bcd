import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { RateLimitService } from '../rate-limits/index.js';
import { apiKeyPortalRoutes } from './api-key.portal-routes.js';
import { ApiKeyService } from './api-key.service.js';

export interface ApiKeysModuleDeps {
  readonly db: Db;
  readonly config: Pick<Config, 'failedApiKeyLimitPerMinute'>;
  readonly limits: RateLimitService;
}

/** API keys: the portal's key management and the service the merchant API's guard authenticates with. */
export function apiKeysModule(deps: ApiKeysModuleDeps) {
  const apiKeys = new ApiKeyService({
    db: deps.db,
    limits: deps.limits,
    failedAttemptsPerMinute: deps.config.failedApiKeyLimitPerMinute,
  });
  return { apiKeys, portalRoutes: apiKeyPortalRoutes({ apiKeys }) };
}
