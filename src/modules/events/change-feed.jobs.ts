import type { Db } from '../../db/database.js';
import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { pruneEventPrefix, pruneInvoiceHistory, workspacesWithEventsBefore } from './change-feed.repo.js';

export const EVENT_RETENTION_JOB = 'events.retention';

const DAY_MS = 86_400_000;
/** Rows per delete statement: bounds how long one workspace's writers wait for its row lock. */
const PRUNE_BATCH = 1000;

/** Creates the recurring job unless it exists (a unique key makes this safe on every start). */
export async function scheduleEventRetention(db: Db): Promise<void> {
  await enqueueJob(db, { kind: EVENT_RETENTION_JOB, uniqueKey: EVENT_RETENTION_JOB });
}

/** How long the feed keeps its events, and invoices' timelines their records (days). */
export interface Retention {
  readonly eventDays: number;
  readonly invoiceDays: number;
}

/**
 * Deletes change-feed events older than `retention.eventDays`, a prefix of each workspace's feed at a
 * time, recording how far it deleted so that readers behind it get 410 cursor_expired; the invoices'
 * events among them move to the invoice history, which keeps them until `retention.invoiceDays`.
 * Idempotent; stops between batches when the signal aborts. Returns the number of events deleted.
 */
export async function pruneEvents(db: Db, now: Date, retention: Retention, signal?: AbortSignal): Promise<number> {
  const cutoff = new Date(now.getTime() - retention.eventDays * DAY_MS);
  const historyCutoff = new Date(now.getTime() - retention.invoiceDays * DAY_MS);
  let total = 0;
  for (const workspaceId of await workspacesWithEventsBefore(db, cutoff)) {
    for (;;) {
      if (signal?.aborted) return total;
      const deleted = await pruneEventPrefix(db, workspaceId, cutoff, PRUNE_BATCH, historyCutoff);
      total += deleted;
      if (deleted === 0) break;
    }
  }
  for (;;) {
    if (signal?.aborted) return total;
    if ((await pruneInvoiceHistory(db, historyCutoff, PRUNE_BATCH)) === 0) return total;
  }
}

/** Runs the retention hourly: one durable row that never completes. */
export function eventRetentionHandler(db: Db, clock: Clock, retention: Retention): JobHandler {
  return async (_job, signal) => {
    await pruneEvents(db, clock.now(), retention, signal);
    throw new RetryLater(3600, 'next event retention in an hour');
  };
}
