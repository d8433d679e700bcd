import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { deleteExpiredIdempotencyKeys, nextOpenDeadline } from './invoice.repo.js';
import type { InvoiceService } from './invoice.service.js';

export const EXPIRE_INVOICES_JOB = 'invoices.expire';
export const IDEMPOTENCY_CLEANUP_JOB = 'idempotency.cleanup';

/** The longest the expiry job sleeps, so a new earlier deadline is noticed within this bound. */
const MAX_SLEEP_SECONDS = 30;

/** Creates the recurring jobs unless they exist (unique keys make this safe on every start). */
export async function scheduleInvoiceJobs(db: Db): Promise<void> {
  await enqueueJob(db, { kind: EXPIRE_INVOICES_JOB, uniqueKey: EXPIRE_INVOICES_JOB });
  await enqueueJob(db, { kind: IDEMPOTENCY_CLEANUP_JOB, uniqueKey: IDEMPOTENCY_CLEANUP_JOB });
}

/**
 * Moves open invoices past their deadline to `expired` (releasing the success-fee reserve), then sleeps
 * until the next deadline, at most MAX_SLEEP_SECONDS. One durable row that never completes: a restart
 * loses nothing, and reads already show due invoices as expired in the meantime.
 */
export function expireInvoicesHandler(invoices: InvoiceService, db: Db, clock: Clock): JobHandler {
  return async () => {
    while ((await invoices.expireDue()) > 0);
    const next = await nextOpenDeadline(db);
    const untilNext = next ? Math.ceil((next.getTime() - clock.now().getTime()) / 1000) : MAX_SLEEP_SECONDS;
    throw new RetryLater(Math.min(MAX_SLEEP_SECONDS, Math.max(1, untilNext)), 'waiting for the next deadline');
  };
}

/** Forgets idempotency keys after their retention (7 days, longer than any payment window). Hourly. */
export function idempotencyCleanupHandler(db: Db, clock: Clock): JobHandler {
  return async () => {
    await deleteExpiredIdempotencyKeys(db, clock.now());
    throw new RetryLater(3600, 'next cleanup in an hour');
  };
}
