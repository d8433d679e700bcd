import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { invoiceAsRead } from '../invoices/index.js';
import { presentInvoice } from '../invoices/index.js';
import { classifyQuery, encodeCursor, hasLookups, parseCursor } from './search.js';
import { searchInvoices } from './search.repo.js';

export interface InvoiceSearchDeps {
  readonly db: Executor;
  readonly clock: Clock;
  readonly publicBaseUrl: URL;
  /** Invoices older than this are shown archived, and still found. */
  readonly invoiceRetentionDays: number;
}

export interface SearchRequest {
  readonly q: string;
  readonly cursor?: string;
  readonly limit: number;
}

export interface SearchPage {
  readonly invoices: ReturnType<typeof presentInvoice>[];
  readonly nextCursor: string | null;
}

/** GET /invoice-search: find a workspace's invoices by number, order reference, link, id or transaction. */
export class InvoiceSearchService {
  constructor(private readonly deps: InvoiceSearchDeps) {}

  /**
   * One page of matches, newest first. `nextCursor` is null exactly when no further match existed when
   * the page was read; otherwise the next page holds at least one invoice (invoices are never deleted
   * and their numbers, order references and links never change). Only this workspace is ever read.
   */
  async search(workspaceId: WorkspaceId, request: SearchRequest): Promise<SearchPage> {
    const before = parseCursor(request.cursor);
    const q = request.q.trim();
    if (q === '')
      throw new AppError(
        'invalid_request',
        'Invalid querystring: q is blank; send an invoice number, order reference, invoice link or transaction hash.',
      );
    const lookups = classifyQuery(q, { workspaceId, publicBaseUrl: this.deps.publicBaseUrl });
    if (!hasLookups(lookups)) return { invoices: [], nextCursor: null };
    // One row beyond the page tells whether another page exists.
    const found = await searchInvoices(this.deps.db, workspaceId, lookups, before, request.limit + 1);
    const page = found.slice(0, request.limit);
    const last = page.at(-1);
    // As GET /invoices/{id} shows them now: an open invoice past its deadline reads as expired before the job records it.
    const now = this.deps.clock.now();
    return {
      invoices: page.map((invoice) => presentInvoice(invoiceAsRead(invoice, now), this.deps, now)),
      nextCursor: found.length > request.limit && last ? encodeCursor(last.number) : null,
    };
  }
}
