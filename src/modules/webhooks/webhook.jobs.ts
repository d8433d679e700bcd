import type { Db } from '../../db/database.js';
import {
  addWeeklyPartitions,
  dropPartitionsBefore,
  partitionsBefore,
  type DropSteps,
  type WeeklyPartitioned,
} from '../../db/partitions.js';
import { JOB_DELETED, RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { WebhookDeliverer } from './webhook.delivery.js';
import { DELIVERY_HISTORY_DAYS } from './webhook.js';
import {
  ATTEMPT_PARTITIONS,
  DELIVERY_PARTITIONS,
  deliveryFromClaim,
  fewPendingDeliveries,
  keepPendingDeliveries,
  pruneWebhookHistory,
  requeueOrphanedDeliveries,
} from './webhook.repo.js';

export { DELIVER_WEBHOOK_JOB } from './webhook.delivery.js';
export const WEBHOOK_RETENTION_JOB = 'webhooks.retention';

/**
 * One attempt of one delivery per run; a failure that will be retried reschedules the same job. The
 * attempt that ends the delivery deletes the job with its result.
 */
export function deliverWebhookHandler(deliverer: WebhookDeliverer): JobHandler {
  return async (job, signal) => {
    const { eventId } = job.payload as { eventId?: unknown };
    if (job.workspaceId === null || typeof eventId !== 'string') throw new Error(`malformed webhook job ${job.id}`);
    const workspaceId = job.workspaceId as WorkspaceId;
    const result = await deliverer.attempt(workspaceId, eventId, {
      signal,
      job: job.claim,
      // Read by the claim when the runner claims with CLAIM_WITH_DELIVERY.
      ...(job.details !== undefined && { delivery: deliveryFromClaim({ workspaceId, eventId }, job.details) }),
    });
    if (!result.done)
      throw new RetryLater(
        result.retryInSeconds,
        `webhook ${eventId}: next attempt in ${Math.round(result.retryInSeconds)} s`,
      );
    return result.jobDeleted ? JOB_DELETED : undefined;
  };
}

export async function scheduleWebhookRetention(db: Db): Promise<void> {
  await enqueueJob(db, { kind: WEBHOOK_RETENTION_JOB, uniqueKey: WEBHOOK_RETENTION_JOB });
}

/** The webhook tables partitioned by week, each with what must happen around a week's drop. */
const WEEKLY: readonly (readonly [WeeklyPartitioned, DropSteps])[] = [
  [ATTEMPT_PARTITIONS, {}],
  [DELIVERY_PARTITIONS, { mayTry: fewPendingDeliveries, mayDrop: keepPendingDeliveries }],
];

/** Partitions are made this far ahead: a week without a retention run still writes into weeks of their own. */
const PARTITIONS_AHEAD_MS = 8 * 86_400_000;

/**
 * Hourly: gives a job back to any pending delivery that lost its own (its job failed for good, e.g. after
 * repeated database errors); makes the coming weeks' partitions of the attempts and of the deliveries and
 * drops the weeks wholly older than 30 days, so that an attempt or a finished delivery is kept 30 to 37
 * days; a dropped week's pending deliveries (a paused endpoint's backlog) are kept (keepPendingDeliveries).
 * Then deletes one by one the history past 30 days that is in no week of its own, or in a week left
 * (pruneWebhookHistory): after the drops, so that a week dropped whole is never deleted row by row first.
 */
export function webhookRetentionHandler(db: Db, clock: Clock, log: LogTarget): JobHandler {
  return async () => {
    await requeueOrphanedDeliveries(db);
    const now = clock.now();
    const cutoff = new Date(now.getTime() - DELIVERY_HISTORY_DAYS * 86_400_000);
    const ahead = new Date(now.getTime() + PARTITIONS_AHEAD_MS);
    const dropped: string[] = [];
    const left: string[] = [];
    for (const [partitioned, steps] of WEEKLY) {
      await addWeeklyPartitions(db, partitioned, now, ahead);
      dropped.push(...(await dropPartitionsBefore(db, partitioned, cutoff, steps)));
      left.push(...(await partitionsBefore(db, partitioned, cutoff)).map(({ name }) => name));
    }
    const deletedRows = await pruneWebhookHistory(db, cutoff);
    if (dropped.length > 0 || deletedRows > 0)
      log.info(
        { dropped, deletedRows },
        `webhook retention dropped ${dropped.length} week(s) of attempts and deliveries and deleted ${deletedRows} row(s) one by one`,
      );
    if (left.length > 0)
      log.warn(
        { left },
        `webhook retention left ${left.join(', ')} for its next run: a lock on the table was not had within 1 s, ` +
          `or a week of deliveries holds more than 10,000 pending ones (a paused endpoint's backlog)`,
      );
    throw new RetryLater(3600, 'next webhook history retention in an hour');
  };
}
