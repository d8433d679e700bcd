import type { Config } from '../../config/config.js';
import type { Db } from '../../db/database.js';
import type { JobHandlers } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { WebhookEndpointService } from '../webhook-endpoint/index.js';
import { WebhookDeliverer } from './webhook.delivery.js';
import {
  DELIVER_WEBHOOK_JOB,
  WEBHOOK_RETENTION_JOB,
  deliverWebhookHandler,
  scheduleWebhookRetention,
  webhookRetentionHandler,
} from './webhook.jobs.js';
import { webhookRoutes } from './webhook.routes.js';
import { SenderThread } from './webhook-sender.js';
import { WebhookService, type WebhookEventLookup } from './webhook.service.js';

export interface WebhooksModuleDeps {
  readonly db: Db;
  /** Where lists and totals read: a replica within DATABASE_READ_MAX_LAG_MS (src/db/read-replicas.ts); default `db`. */
  readonly reads?: Db;
  readonly clock: Clock;
  readonly config: Pick<Config, 'webhookAllowPrivate' | 'webhookRetrySchedule' | 'webhookRetryWindowSeconds'>;
  /** Finds the event a delivery sends (the events module's). */
  readonly findWebhookEvent: WebhookEventLookup;
  /** The endpoint's settings, which PUT /webhook changes (the webhook-endpoint module's). */
  readonly webhookEndpoint: WebhookEndpointService;
  readonly log: LogTarget;
}

/**
 * Signed webhook delivery: the history, retries and test sends (the service), the worker's side that
 * sends one attempt per job run (the deliverer, on a sender thread of its own), the retention of
 * attempts, and the /webhook routes, which also serve the endpoint's settings.
 */
export function webhooksModule(deps: WebhooksModuleDeps) {
  const { db, clock, config } = deps;
  const webhooks = new WebhookService({
    db,
    reads: deps.reads,
    clock,
    allowPrivate: config.webhookAllowPrivate,
    findWebhookEvent: deps.findWebhookEvent,
  });
  const webhookDeliverer = new WebhookDeliverer({
    db,
    clock,
    allowPrivate: config.webhookAllowPrivate,
    retrySchedule: config.webhookRetrySchedule,
    retryWindowSeconds: config.webhookRetryWindowSeconds,
    send: new SenderThread({ allowPrivate: config.webhookAllowPrivate }).send,
    log: deps.log,
  });
  return {
    webhooks,
    webhookDeliverer,
    routes: webhookRoutes({ webhooks, webhookEndpoint: deps.webhookEndpoint }),
    jobs: {
      [DELIVER_WEBHOOK_JOB]: deliverWebhookHandler(webhookDeliverer),
      [WEBHOOK_RETENTION_JOB]: webhookRetentionHandler(db, clock, deps.log),
    } satisfies JobHandlers,
    schedule: scheduleWebhookRetention,
  };
}
