import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

/**
 * Numbers the receipt of an invoice just paid, in the paying transaction: the workspace's receipt
 * counter is taken and raised in the same statement that writes the receipt, so numbers follow commit
 * order and a rolled-back payment consumes none.
 */
export async function issueReceipt(
  trx: Executor,
  workspaceId: WorkspaceId,
  invoiceId: string,
  at: Date,
): Promise<void> {
  await sql`
    WITH counter AS (
      INSERT INTO receipt_counters (workspace_id, last_number) VALUES (${workspaceId}, 1)
      ON CONFLICT (workspace_id) DO UPDATE SET last_number = receipt_counters.last_number + 1
      RETURNING last_number
    )
    INSERT INTO receipts (workspace_id, number, invoice_id, issued_at)
    SELECT ${workspaceId}, last_number, ${invoiceId}, ${at} FROM counter
  `.execute(trx);
}

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
