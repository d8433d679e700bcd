import { signInChainIds, type Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { RateLimitService } from '../rate-limits/index.js';
import { AUTH_CLEANUP_JOB, authCleanupHandler, scheduleAuthCleanup } from './auth.jobs.js';
import { authRoutes } from './auth.routes.js';
import { AuthService } from './auth.service.js';

export interface AuthModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Config;
  readonly limits: RateLimitService;
}

/** Wallet sign-in for the portal: its routes (under /auth), its sessions and their cleanup. */
export function authModule(deps: AuthModuleDeps) {
  const auth = new AuthService({
    db: deps.db,
    clock: deps.clock,
    publicBaseUrl: deps.config.publicBaseUrl,
    chainIds: signInChainIds(deps.config),
    limits: deps.limits,
    noncesPerMinute: deps.config.nonceRateLimitPerMinute,
  });
  return {
    auth,
    routes: authRoutes({ auth, config: deps.config }),
    jobs: { [AUTH_CLEANUP_JOB]: authCleanupHandler(deps.db) } satisfies JobHandlers,
    schedule: scheduleAuthCleanup,
  };
}
