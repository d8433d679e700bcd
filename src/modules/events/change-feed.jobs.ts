import type { Db } from '../../db/database.js';
import {
  addWeeklyPartitions,
  dropPartitionsBefore,
  partitionsBefore,
  partitionsOf,
  type Partition,
} from '../../db/partitions.js';
import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import type { LogTarget } from '../../shared/operator-log.js';
import {
  EVENT_PARTITIONS,
  copyWeekToHistory,
  isWeekRetired,
  lastIdsIn,
  pruneEventPrefixIn,
  pruneInvoiceHistory,
  raiseEventBound,
  workspacesWithOldEventsIn,
} from './event-retention.repo.js';

export const EVENT_RETENTION_JOB = 'events.retention';

const DAY_MS = 86_400_000;
/** Event ids retired or rows deleted a statement: bounds how long one workspace's writers wait for its row lock. */
const PRUNE_BATCH = 1000;
/** Weeks are made this far ahead: a week without a retention run still writes into weeks of their own. */
const PARTITIONS_AHEAD_MS = 8 * DAY_MS;

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
 * Retires change-feed events older than `retention.eventDays`, recording how far each workspace's feed
 * is retired so that readers behind it get 410 cursor_expired; the invoices' events among them move to
 * the invoice history, which keeps them until `retention.invoiceDays`.
 *
 * - The coming weeks' partitions are made.
 * - Events of the partitions that are not weeks (those written before the first week, and those dated
 *   in a week without a partition) are deleted a prefix of each workspace's feed at a time.
 * - A week wholly older than the cutoff is retired (its invoices' events copied to the history, then each
 *   workspace's bound raised to its last id of the week), then its partition is detached and dropped: no
 *   row is deleted. An event is kept 30 to 37 days (with the default retention). So is the partition of
 *   the time before the first week, emptied by then, once that time is wholly older than the cutoff.
 *
 * Idempotent; stops between statements when the signal aborts. Returns the partitions dropped, the
 * number of rows deleted one by one, and the partitions past the cutoff left for the next run (a lock on
 * the table not had in time, or events written into them after they were retired).
 */
export async function pruneEvents(
  db: Db,
  now: Date,
  retention: Retention,
  signal?: AbortSignal,
): Promise<RetentionRun> {
  const cutoff = new Date(now.getTime() - retention.eventDays * DAY_MS);
  const historyCutoff = new Date(now.getTime() - retention.invoiceDays * DAY_MS);
  await addWeeklyPartitions(db, EVENT_PARTITIONS, now, new Date(now.getTime() + PARTITIONS_AHEAD_MS));
  // The partitions that are not weeks first: raising a bound for a week then never has their backlog
  // to copy in one statement.
  let deletedRows = 0;
  for (const { name } of (await partitionsOf(db, EVENT_PARTITIONS.table)).filter((partition) => !partition.week))
    for (const workspaceId of await workspacesWithOldEventsIn(db, name, cutoff))
      for (;;) {
        if (signal?.aborted) return { dropped: [], deletedRows, left: [] };
        const deleted = await pruneEventPrefixIn(db, name, workspaceId, cutoff, PRUNE_BATCH, historyCutoff);
        deletedRows += deleted;
        if (deleted === 0) break;
      }
  const dropped = await dropPartitionsBefore(db, EVENT_PARTITIONS, cutoff, {
    before: (partition) => retirePartition(db, partition, historyCutoff, signal),
    mayDrop: isWeekRetired,
  });
  for (let deleted = PRUNE_BATCH; deleted > 0 && !signal?.aborted;)
    deleted = await pruneInvoiceHistory(db, historyCutoff, PRUNE_BATCH);
  const left = (await partitionsBefore(db, EVENT_PARTITIONS, cutoff)).map(({ name }) => name);
  return { dropped, deletedRows, left };
}

/**
 * Retires a week (or another range partition) before its partition is dropped: its invoices' events
 * copied to the history, then each workspace's bound raised to its last id there. Resolves false when the
 * signal aborted it.
 */
export async function retirePartition(db: Db, partition: Partition, historyCutoff: Date, signal?: AbortSignal) {
  const range = { from: partition.from, to: partition.to! };
  // The last ids first: an event written into the week after them stays above its bound, and the week is
  // not dropped (isWeekRetired) until a later run retires it too.
  const lastIds = await lastIdsIn(db, partition.name);
  await copyWeekToHistory(db, partition.name, historyCutoff);
  for (const last of lastIds) {
    if (signal?.aborted) return false;
    await raiseEventBound(db, last.workspaceId, last.id, range, historyCutoff);
  }
  return true;
}

/** What one run of the event retention did. */
export interface RetentionRun {
  readonly dropped: string[];
  readonly deletedRows: number;
  readonly left: string[];
}

/** Runs the retention hourly: one durable row that never completes. Tells the operator what it did. */
export function eventRetentionHandler(db: Db, clock: Clock, retention: Retention, log: LogTarget): JobHandler {
  return async (_job, signal) => {
    const { dropped, deletedRows, left } = await pruneEvents(db, clock.now(), retention, signal);
    if (dropped.length > 0 || deletedRows > 0)
      log.info(
        { dropped, deletedRows },
        `event retention dropped ${dropped.length} partition(s) of events and deleted ${deletedRows} event(s) one by one`,
      );
    if (left.length > 0)
      log.warn(
        { left },
        `event retention left ${left.join(', ')} for its next run: a lock on events was not had within 1 s, or events were written there after it was retired`,
      );
    throw new RetryLater(3600, 'next event retention in an hour');
  };
}
