import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { ResumeDeliveries } from './webhook-endpoint.js';
import { WebhookEndpointService } from './webhook-endpoint.service.js';

export interface WebhookEndpointModuleDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'webhookAllowPrivate'>;
  /** Sends the backlog when the merchant enables a paused endpoint (the webhooks module's). */
  readonly resumeDeliveries: ResumeDeliveries;
  readonly log: LogTarget;
}

/**
 * The merchant's webhook endpoint: its URL and the rules of where a webhook may go, its signing secret,
 * and whether delivery is on. Its routes are the webhooks module's, next to the delivery history.
 */
export function webhookEndpointModule(deps: WebhookEndpointModuleDeps) {
  const webhookEndpoint = new WebhookEndpointService({
    db: deps.db,
    clock: deps.clock,
    allowPrivate: deps.config.webhookAllowPrivate,
    resumeDeliveries: deps.resumeDeliveries,
    log: deps.log,
  });
  return { webhookEndpoint };
}
