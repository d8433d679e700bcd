import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { invoiceHasStatus, toInvoice, type Invoice, type InvoiceStatus } from '../invoices/index.js';

export interface InvoiceExportFilter {
  /** Only numbers above this one: the page before ended there. */
  readonly afterNumber: bigint;
  /** The last number when the export began: invoices created meanwhile belong to the next export. */
  readonly upToNumber: bigint;
  readonly status?: InvoiceStatus;
  readonly createdFrom?: Date;
  readonly createdUntil?: Date;
  readonly now: Date;
  readonly limit: number;
}

export interface ExportedInvoice {
  readonly invoice: Invoice;
  /** The payment that paid it: its payer and transaction; null while unpaid. */
  readonly payer: string | null;
  readonly transactionHash: string | null;
}

/** The workspace's highest invoice number so far (0 before its first invoice). */
export async function lastInvoiceNumber(db: Executor, workspaceId: WorkspaceId): Promise<bigint> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.max('number').as('number'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row?.number === null || row?.number === undefined ? 0n : BigInt(row.number);
}

/**
 * A page of an export, oldest first by number, each invoice with the payment that paid it. Walks the
 * (workspace_id, number) index forwards from `afterNumber`, like the list walks it backwards.
 */
export async function exportPage(
  db: Executor,
  workspaceId: WorkspaceId,
  filter: InvoiceExportFilter,
): Promise<ExportedInvoice[]> {
  const { status, now } = filter;
  const rows = await db
    .selectFrom('invoices as i')
    .leftJoin('payment_intents as p', (join) =>
      join
        .onRef('p.workspace_id', '=', 'i.workspace_id')
        .onRef('p.invoice_id', '=', 'i.id')
        .on('p.status', '=', 'succeeded')
        .on('p.overpayment', '=', false),
    )
    .selectAll('i')
    .select(['p.payer as paid_by', 'p.tx_hash as paid_in'])
    .where('i.workspace_id', '=', workspaceId)
    .where('i.number', '>', filter.afterNumber)
    .where('i.number', '<=', filter.upToNumber)
    .$if(filter.createdFrom !== undefined, (q) => q.where('i.created_at', '>=', filter.createdFrom!))
    .$if(filter.createdUntil !== undefined, (q) => q.where('i.created_at', '<', filter.createdUntil!))
    .$if(status !== undefined, (q) => q.where(invoiceHasStatus('i', status!, now)))
    .orderBy('i.number', 'asc')
    .limit(filter.limit)
    .execute();
  return rows.map(({ paid_by, paid_in, ...row }) => ({
    invoice: toInvoice(row as unknown as Record<string, unknown>),
    payer: paid_by,
    transactionHash: paid_in,
  }));
}
