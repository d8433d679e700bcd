import type { Db, Executor } from '../../db/database.js';
import { enqueueJob, expediteJob, type JobClaim } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { DELIVER_WEBHOOK_JOB, retryDelaySeconds, signedHeaders, type AttemptOutcome, webhookBody } from './webhook.js';
import type { Resolver } from '../webhook-endpoint/index.js';
import { inlineSender, type SendWebhook } from './webhook-sender.js';
import { Batcher } from '../../shared/batcher.js';
import {
  findDeliveriesToSend,
  insertDeliveriesWithJobs,
  insertDelivery,
  recordAttemptResults,
  renewPendingDeliveries,
  type AttemptRecorded,
  type AttemptResultRecord,
  type DeliveryKey,
  type DeliveryToSend,
} from './webhook.repo.js';

export { DELIVER_WEBHOOK_JOB };

/**
 * Delivery jobs of one workspace that a process runs at once (the runner's `perWorkspaceLimit`), an
 * eighth of its slots. A receiver that hangs for 8 s a request then holds these slots, not every slot
 * of the worker: other workspaces' deliveries keep flowing, and the workspace's other jobs wait
 * unclaimed. One workspace's backlog still drains at a good share of what the worker can send.
 */
export const DELIVERIES_PER_WORKSPACE = 32;

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
  if (recorded) await scheduleDelivery(trx, workspaceId, eventId, event.at);
}

/**
 * Records the deliveries of new feed events (of any workspaces) inside the events' own transaction, each
 * with its job, in one statement: the same as queueWebhookDelivery for each, for events just appended.
 */
export async function queueNewEventDeliveries(
  trx: Executor,
  events: readonly (WebhookEventInput & { readonly workspaceId: WorkspaceId })[],
): Promise<void> {
  if (events.length === 0) return;
  await insertDeliveriesWithJobs(
    trx,
    events.map(({ workspaceId, eventId, type, invoiceId, data, at }) => {
      const id = eventId.toString();
      return {
        workspaceId,
        eventId: id,
        type,
        invoiceId,
        at,
        body: JSON.stringify(webhookBody(workspaceId, { id, type, at, data })),
      };
    }),
  );
}

/**
 * Makes sure a job will attempt the delivery now: a new one, or the waiting one brought forward. `at` is
 * the delivery's created_at, which the job's claim reads it by (its week's partition alone).
 */
export async function scheduleDelivery(
  trx: Executor,
  workspaceId: WorkspaceId,
  eventId: string,
  at: Date,
): Promise<void> {
  const uniqueKey = `${workspaceId}/${eventId}`;
  const payload = { eventId, at: at.toISOString() };
  const created = await enqueueJob(trx, { kind: DELIVER_WEBHOOK_JOB, workspaceId, payload, uniqueKey });
  if (created === undefined) await expediteJob(trx, DELIVER_WEBHOOK_JOB, uniqueKey);
}

/**
 * The backlog a resume sends: every pending delivery of the workspace, due now with a fresh retry window
 * (time spent paused does not count against it) and its job brought forward. Resolves how many.
 */
export async function resumeWaitingDeliveries(trx: Executor, workspaceId: WorkspaceId, at: Date): Promise<number> {
  const backlog = await renewPendingDeliveries(trx, workspaceId, at);
  for (const delivery of backlog) await scheduleDelivery(trx, workspaceId, delivery.eventId, delivery.at);
  return backlog.length;
}

export interface DelivererDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly allowPrivate: boolean;
  readonly retrySchedule: readonly number[];
  readonly retryWindowSeconds: number;
  /** DNS for the SSRF guard; the system resolver when unset. */
  readonly resolve?: Resolver;
  /**
   * How attempts are sent; default postWebhook on this thread (with `resolve`). The service's worker
   * sends on a thread of its own (SenderThread).
   */
  readonly send?: SendWebhook;
  /** Told of each failed attempt. */
  readonly log?: LogTarget;
}

/** What an attempt is given by the job that makes it. */
export interface AttemptRun {
  /** Aborts the attempt: shutdown, or the job's lease was lost. */
  readonly signal?: AbortSignal;
  /** The delivery job's claim, so that the result that ends the delivery deletes the job too. */
  readonly job?: JobClaim;
  /** The delivery as the job's claim read it (undefined: gone); when absent, the attempt reads it. */
  readonly delivery?: DeliveryToSend | undefined;
}

/**
 * What the job does next: nothing (finished; `jobDeleted` when the job went with the attempt's result),
 * or run again after `retryInSeconds`.
 */
export type AttemptResult =
  { readonly done: true; readonly jobDeleted: boolean } | { readonly done: false; readonly retryInSeconds: number };

/**
 * Sends pending deliveries, one attempt per call, and records every attempt. At least once. The delivery
 * runner's claim brings each delivery (CLAIM_WITH_DELIVERY); other callers' reads, and the writes of
 * attempts running at once, share their round trips (`Batcher`): under load a delivery costs the
 * database a share of its claim and of one single-statement commit, which also ends its job.
 */
export class WebhookDeliverer {
  private readonly reads: Batcher<DeliveryKey, DeliveryToSend | undefined>;
  private readonly writes: Batcher<AttemptResultRecord, AttemptRecorded>;
  private readonly send: SendWebhook;

  constructor(private readonly deps: DelivererDeps) {
    this.send = deps.send ?? inlineSender(deps);
    this.reads = new Batcher((keys) => findDeliveriesToSend(deps.db, keys));
    this.writes = new Batcher((records) => recordAttemptResults(deps.db, records));
  }

  async attempt(workspaceId: WorkspaceId, eventId: string, run: AttemptRun = {}): Promise<AttemptResult> {
    const { signal, job } = run;
    const delivery = 'delivery' in run ? run.delivery : await this.reads.submit({ workspaceId, eventId });
    if (!delivery || delivery.status !== 'pending') return { done: true, jobDeleted: false };
    // Paused: the backlog waits; resuming brings this job forward.
    if (!delivery.enabled) return { done: false, retryInSeconds: PAUSED_RECHECK_SECONDS };

    const startedAt = this.deps.clock.now();
    const headers = signedHeaders(delivery.secret, eventId, delivery.body, startedAt);
    const outcome = await this.send({ url: delivery.url, headers, body: delivery.body }, signal);
    // Stopped mid-attempt (shutdown, lost lease): not the receiver's failure. Nothing is recorded and
    // the job runs again; the receiver may get this event twice, which at-least-once allows.
    if (signal?.aborted && !outcome.ok) return { done: false, retryInSeconds: 0 };
    const attempts = delivery.attempts + 1;
    const next = this.nextStep(outcome, attempts, delivery.window_started_at, startedAt);
    const { recorded, jobDeleted } = await this.writes.submit({
      workspaceId,
      eventId,
      invoiceId: delivery.invoice_id,
      createdAt: delivery.created_at,
      attempt: attempts,
      startedAt,
      outcome,
      status: next.status,
      nextAttemptAt:
        next.retryInSeconds === undefined ? null : new Date(startedAt.getTime() + next.retryInSeconds * 1000),
      // A failure is judged against the window it was attempted in: a manual retry or a resume during
      // the attempt started a new one, which this job serves next, at once.
      ...(!outcome.ok && { windowStartedAt: delivery.window_started_at }),
      ...(job && { job }),
    });
    if (!recorded) return { done: false, retryInSeconds: 0 };
    if (!outcome.ok)
      this.tellFailure(workspaceId, eventId, delivery.invoice_id, outcome, attempts, next.retryInSeconds);
    return next.retryInSeconds === undefined
      ? { done: true, jobDeleted }
      : { done: false, retryInSeconds: next.retryInSeconds };
  }

  private tellFailure(
    workspaceId: WorkspaceId,
    eventId: string,
    invoiceId: string | null,
    outcome: Extract<AttemptOutcome, { ok: false }>,
    attempt: number,
    retryInSeconds: number | undefined,
  ): void {
    // The receiver's URL stays out: it may carry a token of the merchant's.
    const why = outcome.error === 'http_status' ? `the endpoint answered ${outcome.status}` : outcome.error;
    const then =
      retryInSeconds === undefined
        ? 'given up: its retry window is over'
        : `next attempt in ${Math.round(retryInSeconds)} s`;
    this.deps.log?.warn(
      { workspaceId, eventId, invoiceId, attempt, statusCode: outcome.status, error: outcome.error },
      `webhook delivery of event ${eventId} failed (${why}, attempt ${attempt}); ${then}`,
    );
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
