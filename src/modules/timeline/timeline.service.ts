import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { WEBHOOK_EVENT_TYPES } from '../events/index.js';
import { effectiveStatus, isArchived, type InvoiceId, type InvoiceStatus } from '../invoices/index.js';
import { TIMELINE_EVENT_TYPES, TIMELINE_LIMIT, attemptRecord, eventRecord, type TimelineRecord } from './timeline.js';
import { readInvoiceTimeline, type InvoiceTimeline, type TimelineEntry } from './timeline.repo.js';
import { readSnapshot, type SnapshotSources, type TimelineSnapshot } from './timeline.snapshot.js';

/** How long, in days, the records of an invoice are kept. */
export interface TimelineRetention {
  /** Webhook attempts (the delivery history). */
  readonly attemptDays: number;
  /** Lifecycle records, kept past the feed's own retention (INVOICE_RETENTION_DAYS). */
  readonly invoiceDays: number;
}

export interface TimelineServiceDeps {
  readonly db: Executor;
  readonly clock: Clock;
  readonly retention: TimelineRetention;
  readonly snapshots: SnapshotSources;
}

const DAY_MS = 86_400_000;
const SENT_AS_WEBHOOKS: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);
const CREATED_EVENT = 'invoice.created';

export interface InvoiceTimelineView {
  readonly invoiceId: string;
  readonly status: InvoiceStatus;
  readonly records: TimelineRecord[];
  readonly truncated: boolean;
  /** Null unless the invoice is archived: then it stands in place of the records retention removed. */
  readonly snapshot: TimelineSnapshot | null;
}

/** GET /invoices/{id}/timeline: what happened to one invoice, and to the webhooks about it. */
export class TimelineService {
  constructor(private readonly deps: TimelineServiceDeps) {}

  /**
   * The invoice's most recent records, oldest first, at most TIMELINE_LIMIT. `truncated` tells that
   * records are missing: older ones beyond the limit, or ones retention removed; an archived invoice
   * (older than the invoice retention) adds its snapshot. Answers not_found for an invoice of another
   * workspace exactly as for none at all.
   */
  async forInvoice(workspaceId: WorkspaceId, invoiceId: InvoiceId): Promise<InvoiceTimelineView> {
    // One entry beyond the limit tells whether older records exist; it is the oldest, so it is dropped.
    const timeline = await readInvoiceTimeline(
      this.deps.db,
      workspaceId,
      invoiceId,
      TIMELINE_EVENT_TYPES,
      TIMELINE_LIMIT + 1,
    );
    if (!timeline) throw new AppError('not_found', 'No such invoice in this workspace.');
    const now = this.deps.clock.now();
    const beyondLimit = timeline.entries.length > TIMELINE_LIMIT;
    const entries = beyondLimit ? timeline.entries.slice(-TIMELINE_LIMIT) : timeline.entries;
    const records = entries.flatMap((entry) =>
      entry.source === 'event' ? (eventRecord(entry) ?? []) : [attemptRecord(entry)],
    );
    // Archived: its records are gone with the invoice retention (any kept are newer ones), its snapshot stays.
    const archived = isArchived(timeline, now, this.deps.retention.invoiceDays);
    return {
      invoiceId,
      status: effectiveStatus(timeline, now),
      records,
      // Every invoice has at least its creation: an empty list is never complete.
      truncated:
        records.length === 0 ||
        beyondLimit ||
        archived ||
        !startsAtCreation(entries) ||
        this.attemptsRemoved(timeline, now),
      snapshot: archived ? await readSnapshot(this.deps.snapshots, workspaceId, invoiceId) : null,
    };
  }

  /**
   * Whether retention has removed attempts of this invoice: those to deliver an event sent as a webhook
   * (while the workspace had an endpoint) once that event is older than the delivery history.
   */
  private attemptsRemoved(timeline: InvoiceTimeline, now: Date): boolean {
    const before = now.getTime() - this.deps.retention.attemptDays * DAY_MS;
    const { webhooksSince } = timeline;
    return (
      webhooksSince !== null &&
      timeline.entries.some(
        (entry) =>
          entry.source === 'event' &&
          SENT_AS_WEBHOOKS.has(entry.type) &&
          entry.createdAt >= webhooksSince &&
          entry.createdAt.getTime() < before,
      )
    );
  }
}

/**
 * Every invoice's first record is its creation: a list that does not start there lost older records,
 * whatever removed them (retention before the invoice history existed, for one).
 */
function startsAtCreation(entries: readonly TimelineEntry[]): boolean {
  const first = entries.find((entry) => entry.source === 'event');
  return first?.type === CREATED_EVENT;
}
