import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { healthRoutes } from './health.routes.js';
import { HealthService } from './health.service.js';

export interface HealthModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'successFeeCredits' | 'webhookRetrySchedule'>;
}

/** What needs the merchant's attention. */
export function healthModule(deps: HealthModuleDeps) {
  const health = new HealthService({
    db: deps.db,
    clock: deps.clock,
    successFeeCredits: deps.config.successFeeCredits,
    webhookRetrySchedule: deps.config.webhookRetrySchedule,
  });
  return { health, routes: healthRoutes({ health, config: deps.config }) };
}
