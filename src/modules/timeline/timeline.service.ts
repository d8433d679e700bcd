import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { effectiveStatus, type InvoiceId, type InvoiceStatus } from '../invoices/index.js';
import { TIMELINE_EVENT_TYPES, TIMELINE_LIMIT, attemptRecord, eventRecord, type TimelineRecord } from './timeline.js';
import { readInvoiceTimeline } from './timeline.repo.js';

export interface TimelineServiceDeps {
  readonly db: Executor;
  readonly clock: Clock;
}

export interface InvoiceTimelineView {
  readonly invoiceId: string;
  readonly status: InvoiceStatus;
  readonly records: TimelineRecord[];
  readonly truncated: boolean;
}

/** GET /invoices/{id}/timeline: what happened to one invoice, and to the webhooks about it. */
export class TimelineService {
  constructor(private readonly deps: TimelineServiceDeps) {}

  /**
   * The invoice's most recent records, oldest first, at most TIMELINE_LIMIT; `truncated` tells that
   * older ones exist. Answers not_found for an invoice of another workspace exactly as for none at all.
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
    const truncated = timeline.entries.length > TIMELINE_LIMIT;
    const entries = truncated ? timeline.entries.slice(-TIMELINE_LIMIT) : timeline.entries;
    return {
      invoiceId,
      status: effectiveStatus(timeline, this.deps.clock.now()),
      records: entries.flatMap((entry) =>
        entry.source === 'event' ? (eventRecord(entry) ?? []) : [attemptRecord(entry)],
      ),
      truncated,
    };
  }
}
