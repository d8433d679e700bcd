import type { Db, Executor } from '../../db/database.js';
import { enqueueJob, expediteJob } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { DELIVER_WEBHOOK_JOB, retryDelaySeconds, signedHeaders, type AttemptOutcome, webhookBody } from './webhook.js';
import { postWebhook, type Resolver } from './webhook-http.js';
import { findDelivery, findEndpoint, insertAttempt, insertDelivery, recordDeliveryResult } from './webhook.repo.js';

export { DELIVER_WEBHOOK_JOB };

/**
 * Attempts of one workspace running at once in this process. A receiver that hangs for 8 s a request
 * then holds these slots, not every slot of the worker: other workspaces' deliveries keep flowing.
 */
const MAX_IN_FLIGHT_PER_WORKSPACE = 8;
/** How soon a delivery deferred by that limit is looked at again. */
const BUSY_RECHECK_SECONDS = 1;

/**
 * While delivery is paused a delivery job looks again this often. A resume makes waiting jobs due at
 * once; a job that was checking at that very moment picks the resume up on its next look.
 */
const PAUSED_RECHECK_SECONDS = 60;

export interface WebhookEventInput {
  readonly eventId: bigint;
  readonly type: string;
  readonly invoiceId: string | null;
  readonly data: unknown;
  readonly at: Date;
}

/**
 * Records the delivery of a feed event inside the event's own transaction, with the job that sends it,
 * when the workspace has an endpoint. A crash after commit loses nothing: the job is a row.
 */
export async function queueWebhookDelivery(
  trx: Executor,
  workspaceId: WorkspaceId,
  event: WebhookEventInput,
): Promise<void> {
  const eventId = event.eventId.toString();
  const body = webhookBody(workspaceId, { id: eventId, type: event.type, at: event.at, data: event.data });
  const recorded = await insertDelivery(trx, workspaceId, {
    eventId,
    type: event.type,
    invoiceId: event.invoiceId,
    body: JSON.stringify(body),
    at: event.at,
  });
  if (recorded) await scheduleDelivery(trx, workspaceId, eventId);
}

/** Makes sure a job will attempt the delivery now: a new one, or the waiting one brought forward. */
export async function scheduleDelivery(trx: Executor, workspaceId: WorkspaceId, eventId: string): Promise<void> {
  const uniqueKey = `${workspaceId}/${eventId}`;
  const created = await enqueueJob(trx, { kind: DELIVER_WEBHOOK_JOB, workspaceId, payload: { eventId }, uniqueKey });
  if (created === undefined) await expediteJob(trx, DELIVER_WEBHOOK_JOB, uniqueKey);
}

export interface DelivererDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly allowPrivate: boolean;
  readonly retrySchedule: readonly number[];
  readonly retryWindowSeconds: number;
  /** DNS for the SSRF guard; the system resolver when unset. */
  readonly resolve?: Resolver;
}

/** What the job does next: nothing (finished), or run again after `retryInSeconds`. */
export type AttemptResult = { readonly done: true } | { readonly done: false; readonly retryInSeconds: number };

/** Sends pending deliveries, one attempt per call, and records every attempt. At least once. */
export class WebhookDeliverer {
  private readonly inFlight = new Map<WorkspaceId, number>();

  constructor(private readonly deps: DelivererDeps) {}

  async attempt(workspaceId: WorkspaceId, eventId: string, signal?: AbortSignal): Promise<AttemptResult> {
    const running = this.inFlight.get(workspaceId) ?? 0;
    if (running >= MAX_IN_FLIGHT_PER_WORKSPACE)
      return { done: false, retryInSeconds: BUSY_RECHECK_SECONDS * (1 + Math.random()) };
    this.inFlight.set(workspaceId, running + 1);
    try {
      return await this.attemptNow(workspaceId, eventId, signal);
    } finally {
      const left = (this.inFlight.get(workspaceId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(workspaceId);
      else this.inFlight.set(workspaceId, left);
    }
  }

  private async attemptNow(workspaceId: WorkspaceId, eventId: string, signal?: AbortSignal): Promise<AttemptResult> {
    const { db, clock } = this.deps;
    const [delivery, endpoint] = await Promise.all([
      findDelivery(db, workspaceId, eventId),
      findEndpoint(db, workspaceId),
    ]);
    if (!delivery || delivery.status !== 'pending' || !endpoint) return { done: true };
    // Paused: the backlog waits; resuming brings this job forward.
    if (!endpoint.enabled) return { done: false, retryInSeconds: PAUSED_RECHECK_SECONDS };

    const startedAt = clock.now();
    const headers = signedHeaders(endpoint.secret, eventId, delivery.body, startedAt);
    const outcome = await postWebhook(
      { url: endpoint.url, headers, body: delivery.body },
      {
        allowPrivate: this.deps.allowPrivate,
        ...(this.deps.resolve && { resolve: this.deps.resolve }),
        ...(signal && { signal }),
      },
    );
    // Stopped mid-attempt (shutdown, lost lease): not the receiver's failure. Nothing is recorded and
    // the job runs again; the receiver may get this event twice, which at-least-once allows.
    if (signal?.aborted && !outcome.ok) return { done: false, retryInSeconds: 0 };
    const attempts = delivery.attempts + 1;
    const next = this.nextStep(outcome, attempts, delivery.window_started_at, startedAt);
    const recorded = await db.transaction().execute(async (trx) => {
      await insertAttempt(trx, workspaceId, {
        eventId,
        invoiceId: delivery.invoice_id,
        attempt: attempts,
        startedAt,
        outcome,
      });
      return recordDeliveryResult(trx, workspaceId, eventId, {
        status: next.status,
        attempts,
        startedAt,
        outcome,
        nextAttemptAt:
          next.retryInSeconds === undefined ? null : new Date(startedAt.getTime() + next.retryInSeconds * 1000),
        // A failure is judged against the window it was attempted in: a manual retry or a resume
        // during the attempt started a new one, which this job serves next, at once.
        ...(!outcome.ok && { windowStartedAt: delivery.window_started_at }),
      });
    });
    if (!recorded) return { done: false, retryInSeconds: 0 };
    return next.retryInSeconds === undefined ? { done: true } : { done: false, retryInSeconds: next.retryInSeconds };
  }

  private nextStep(outcome: AttemptOutcome, attempts: number, windowStartedAt: Date, at: Date) {
    if (outcome.ok) return { status: 'succeeded' as const, retryInSeconds: undefined };
    const delay = retryDelaySeconds(this.deps.retrySchedule, attempts);
    const windowEnds = windowStartedAt.getTime() + this.deps.retryWindowSeconds * 1000;
    // The last retry is the one that still starts inside the window.
    if (at.getTime() + delay * 1000 > windowEnds) return { status: 'failed' as const, retryInSeconds: undefined };
    return { status: 'pending' as const, retryInSeconds: delay };
  }
}
