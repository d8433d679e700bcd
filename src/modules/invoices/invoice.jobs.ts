import { RetryLater, enqueueJob, type JobHandler } from '../../jobs/index.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { nextOpenDeadline } from './invoice.repo.js';
import type { InvoiceService } from './invoice.service.js';

export const EXPIRE_INVOICES_JOB = 'invoices.expire';

/** The longest the expiry job sleeps, so a new earlier deadline is noticed within this bound. */
const MAX_SLEEP_SECONDS = 30;

/** Creates the recurring job unless it exists (its unique key makes this safe on every start). */
export async function scheduleInvoiceJobs(db: Db): Promise<void> {
  await enqueueJob(db, { kind: EXPIRE_INVOICES_JOB, uniqueKey: EXPIRE_INVOICES_JOB });
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
