import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

/** An invoice just paid, whose receipt is numbered in the paying transaction. */
export interface ReceiptIssue {
  readonly invoiceId: string;
  readonly at: Date;
}

/**
 * Numbers the receipts of a workspace's invoices just paid, in the paying transaction, in the order
 * given: the workspace's receipt counter is taken and raised in the same statement that writes the
 * receipts, so numbers follow commit order and a rolled-back payment consumes none. One statement for
 * all of them (the payments of a block are numbered together). Used as a late write
 * (WorkspaceWrites.then): the counter locks after the events, as the workspace's other counters.
 */
export const receiptIssues = {
  async write(trx: Executor, workspaceId: WorkspaceId, issues: readonly ReceiptIssue[]): Promise<void> {
    await sql`
      WITH counter AS (
        INSERT INTO receipt_counters (workspace_id, last_number) VALUES (${workspaceId}, ${issues.length})
        ON CONFLICT (workspace_id) DO UPDATE SET last_number = receipt_counters.last_number + ${issues.length}
        RETURNING last_number
      )
      INSERT INTO receipts (workspace_id, number, invoice_id, issued_at)
      SELECT ${workspaceId}, counter.last_number - ${issues.length} + t.ord, t.invoice_id, t.issued_at
        FROM counter,
             unnest(${issues.map((issue) => issue.invoiceId)}::text[], ${issues.map((issue) => issue.at.toISOString())}::timestamptz[])
             WITH ORDINALITY AS t(invoice_id, issued_at, ord)
       ORDER BY t.ord
    `.execute(trx);
  },
};

/** The invoice's payment was taken back by the chain: its receipt no longer proves a payment. */
export async function voidReceipt(trx: Executor, workspaceId: WorkspaceId, invoiceId: string, at: Date): Promise<void> {
  await trx
    .updateTable('receipts')
    .set({ voided_at: at })
    .where('workspace_id', '=', workspaceId)
    .where('invoice_id', '=', invoiceId)
    .where('voided_at', 'is', null)
    .execute();
}

/** The number of the invoice's valid receipt. */
export async function findReceipt(
  db: Executor,
  workspaceId: WorkspaceId,
  invoiceId: string,
): Promise<{ number: bigint } | undefined> {
  const row = await db
    .selectFrom('receipts')
    .select('number')
    .where('workspace_id', '=', workspaceId)
    .where('invoice_id', '=', invoiceId)
    .where('voided_at', 'is', null)
    .executeTakeFirst();
  return row && { number: BigInt(row.number) };
}
