import { inOneSnapshot, type Db, type Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { randomToken, type WorkspaceId } from '../../shared/ids.js';
import { findEndpoint, lockEndpoint, takeTestSlot, type Resolver } from '../webhook-endpoint/index.js';
import { scheduleDelivery, queueWebhookDelivery, type WebhookEventInput } from './webhook.delivery.js';
import { inlineSender } from './webhook-sender.js';
import { signedHeaders, storedEventId, TEST_EVENT_TYPE, webhookBody } from './webhook.js';
import * as repo from './webhook.repo.js';
import { DELIVERY_HISTORY_DAYS } from './webhook.js';

/** Deliveries and attempts GET /webhook shows: up to 20 of each. */
const RECENT = 20;
/** One test send per minute per workspace. */
const TEST_INTERVAL_SECONDS = 60;

/**
 * Reads a retained feed event of a webhook kind (undefined for none or another kind): how a manual
 * retry sends an event that never had a delivery. Supplied by the events module.
 */
export type WebhookEventLookup = (
  db: Executor,
  workspaceId: WorkspaceId,
  eventId: bigint,
) => Promise<WebhookEventInput | undefined>;

export interface WebhookServiceDeps {
  readonly db: Db;
  /** Where lists and totals read: a replica within DATABASE_READ_MAX_LAG_MS (src/db/read-replicas.ts); default `db`. */
  readonly reads?: Db;
  readonly findWebhookEvent: WebhookEventLookup;
  readonly clock: Clock;
  readonly allowPrivate: boolean;
  readonly resolve?: Resolver;
}

/**
 * The merchant's webhook use cases on the deliveries: inspect, retry, test. The endpoint's settings are
 * the webhook-endpoint module's.
 */
export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  async view(workspaceId: WorkspaceId) {
    // One snapshot for the three reads: an attempt recorded in between must not show a `succeeded`
    // delivery beside attempts that do not yet hold the one that succeeded.
    const { endpoint, deliveries, attempts } = await inOneSnapshot(this.deps.db, async (trx) => ({
      endpoint: await findEndpoint(trx, workspaceId),
      deliveries: await repo.recentDeliveries(trx, workspaceId, RECENT),
      attempts: await repo.recentAttempts(trx, workspaceId, RECENT),
    }));
    return {
      endpoint: endpoint?.url ?? null,
      enabled: endpoint?.enabled ?? false,
      pausedAt: endpoint?.paused_at?.toISOString() ?? null,
      secretCreatedAt: endpoint?.secret_created_at.toISOString() ?? null,
      deliveries: deliveries.map(presentDelivery),
      recentAttempts: attempts.map(presentAttempt),
    };
  }

  /** Delivery attempts per UTC day from `from` on, test sends included: each one reached (or missed) the receiver. */
  attemptsPerDay(
    workspaceId: WorkspaceId,
    from: Date,
  ): Promise<{ day: string; attempts: number; succeeded: number }[]> {
    return repo.attemptTotalsByDay(this.deps.reads ?? this.deps.db, workspaceId, from);
  }

  /**
   * Attempts a delivery again now, with a fresh retry window. An event that had no delivery (it came
   * before the endpoint was set) gets one, so any retained webhook event can be re-sent.
   */
  async retry(workspaceId: WorkspaceId, requested: string) {
    if (requested.startsWith('test_'))
      throw new AppError('invalid_request', 'Test events are never retried: send a new one with POST /webhook/test.');
    const eventId = storedEventId(requested);
    return this.deps.db.transaction().execute(async (trx) => {
      const at = this.deps.clock.now();
      if (!(await lockEndpoint(trx, workspaceId))) throw notConfigured();
      if (eventId === undefined) throw noSuchEvent(requested);
      const existing = await repo.findDelivery(trx, workspaceId, eventId);
      if (existing?.status === 'succeeded') {
        throw new AppError(
          'delivery_already_succeeded',
          `Event ${eventId} was already acknowledged by the receiver; it is not sent again.`,
        );
      }
      if (existing) {
        await repo.reopenDelivery(trx, workspaceId, eventId, at);
        await scheduleDelivery(trx, workspaceId, eventId, existing.created_at);
      } else {
        const event = await this.deps.findWebhookEvent(trx, workspaceId, BigInt(eventId));
        if (!event) throw noSuchEvent(eventId);
        // Beyond the delivery history nobody can tell whether the receiver acknowledged it already.
        if (event.at.getTime() < at.getTime() - DELIVERY_HISTORY_DAYS * 86_400_000) {
          throw new AppError(
            'not_found',
            `Event ${eventId} is older than the ${DELIVERY_HISTORY_DAYS}-day delivery history; read it from GET /changes instead.`,
          );
        }
        await queueWebhookDelivery(trx, workspaceId, event);
        await repo.reopenDelivery(trx, workspaceId, eventId, at);
      }
      return presentDelivery((await repo.findDelivery(trx, workspaceId, eventId))!);
    });
  }

  /**
   * Sends one signed `webhook.test` now and answers with its outcome: at most one a minute, never
   * retried, no credits, no payment. Works while delivery is paused, to check a rotated secret.
   */
  async sendTest(workspaceId: WorkspaceId) {
    const { db, clock } = this.deps;
    const at = clock.now();
    const endpoint = await db.transaction().execute(async (trx) => {
      const current = await lockEndpoint(trx, workspaceId);
      if (!current) throw notConfigured();
      const waitSeconds = await takeTestSlot(trx, workspaceId, at, TEST_INTERVAL_SECONDS);
      if (waitSeconds !== undefined) {
        throw new AppError('webhook_test_rate_limited', `One test event per minute: try again in ${waitSeconds} s.`, {
          retryAfterSeconds: waitSeconds,
        });
      }
      return current;
    });
    const eventId = `test_${randomToken()}`;
    const body = webhookBody(workspaceId, { id: eventId, type: TEST_EVENT_TYPE, at, data: {}, test: true });
    const raw = JSON.stringify(body);
    const outcome = await inlineSender(this.deps)({
      url: endpoint.url,
      headers: signedHeaders(endpoint.secret, eventId, raw, at),
      body: raw,
    });
    await db.transaction().execute(async (trx) => {
      await repo.insertDelivery(trx, workspaceId, { eventId, type: TEST_EVENT_TYPE, invoiceId: null, body: raw, at });
      await repo.recordAttemptResults(trx, [
        {
          workspaceId,
          eventId,
          invoiceId: null,
          createdAt: at.toISOString(),
          attempt: 1,
          startedAt: at,
          outcome,
          status: outcome.ok ? 'succeeded' : 'failed',
          nextAttemptAt: null,
        },
      ]);
    });
    return {
      id: eventId,
      delivered: outcome.ok,
      statusCode: outcome.status ?? null,
      error: outcome.ok ? null : outcome.error,
      durationMs: Math.round(outcome.durationMs),
    };
  }
}

function noSuchEvent(eventId: string): AppError {
  return new AppError('not_found', `No webhook event ${eventId.slice(0, 40)} in this workspace.`);
}

function notConfigured(): AppError {
  return new AppError('webhook_not_configured', 'No webhook endpoint is set: PUT /webhook with an endpoint first.');
}

export function presentDelivery(row: repo.DeliveryRow) {
  return {
    eventId: row.event_id,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    lastAttemptAt: row.last_attempt_at?.toISOString() ?? null,
    nextAttemptAt: row.status === 'pending' ? (row.next_attempt_at?.toISOString() ?? null) : null,
    lastDurationMs: row.last_duration_ms,
    createdAt: row.created_at.toISOString(),
    deliveredAt: row.delivered_at?.toISOString() ?? null,
  };
}

export function presentAttempt(row: repo.AttemptRow) {
  return {
    eventId: row.event_id,
    invoiceId: row.invoice_id,
    attempt: row.attempt,
    startedAt: row.started_at.toISOString(),
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    error: row.error,
  };
}
