import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { invoiceAsRead, type Invoice, type InvoiceStatus } from '../invoices/index.js';
import { CSV_HEADER, csvRow } from './invoice-export.js';
import { exportPage, lastInvoiceNumber } from './invoice-export.repo.js';

/** Rows a page of the export reads at a time. */
const EXPORT_PAGE = 1000;

export interface InvoiceExportDeps {
  readonly db: Executor;
  readonly clock: Clock;
}

/** `GET /invoices/export`: a workspace's invoices as CSV, for spreadsheets and accounting imports. */
export class InvoiceExportService {
  constructor(private readonly deps: InvoiceExportDeps) {}

  /**
   * The workspace's invoices as CSV (`invoice-export.ts`), oldest first, optionally of one status and of
   * a half-open range of creation times: the header, then a chunk per page of EXPORT_PAGE rows, read as
   * the consumer asks for them, so memory stays flat however many there are. The invoices are those that
   * existed when the export began, each as it is when its page is read.
   */
  async *exportCsv(
    workspaceId: WorkspaceId,
    query: { status?: InvoiceStatus; createdFrom?: Date; createdUntil?: Date },
  ): AsyncGenerator<string> {
    yield CSV_HEADER;
    const upToNumber = await lastInvoiceNumber(this.deps.db, workspaceId);
    let afterNumber = 0n;
    for (;;) {
      const rows = await exportPage(this.deps.db, workspaceId, {
        ...query,
        afterNumber,
        upToNumber,
        now: this.deps.clock.now(),
        limit: EXPORT_PAGE,
      });
      if (rows.length === 0) return;
      yield rows.map((row) => csvRow({ ...row, invoice: this.asRead(row.invoice) })).join('');
      if (rows.length < EXPORT_PAGE) return;
      afterNumber = rows.at(-1)!.invoice.number;
    }
  }

  /** Readers never see an open invoice past its deadline: it reads as expired at its deadline. */
  private asRead(invoice: Invoice): Invoice {
    return invoiceAsRead(invoice, this.deps.clock.now());
  }
}
