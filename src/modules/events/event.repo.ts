import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';

export interface NewEvent {
  readonly type: string;
  readonly invoiceId?: string;
  readonly paymentIntentId?: string;
  readonly data: unknown;
  readonly at: Date;
}

/**
 * Appends a change-feed event inside the caller's transaction. The id comes from the workspace's
 * counter; its row lock, held to commit, makes commit order equal id order within a workspace.
 */
export async function appendEvent(trx: Executor, workspaceId: WorkspaceId, event: NewEvent): Promise<bigint> {
  const { id } = await sql<{ id: bigint }>`
    WITH seq AS (UPDATE workspaces SET event_seq = event_seq + 1 WHERE id = ${workspaceId} RETURNING event_seq)
    INSERT INTO events (workspace_id, id, type, invoice_id, payment_intent_id, data, created_at)
    SELECT ${workspaceId}, event_seq, ${event.type}, ${event.invoiceId ?? null}, ${event.paymentIntentId ?? null},
           ${JSON.stringify(event.data)}::jsonb, ${event.at} FROM seq
    RETURNING id`
    .execute(trx)
    .then((result) => result.rows[0]!);
  return id;
}

/**
 * Appends an invoice event whose data is the invoice row as it is now in this transaction — the same
 * snapshot `create_invoice` records for `invoice.created`.
 */
export async function appendInvoiceEvent(trx: Executor, workspaceId: WorkspaceId, type: string, invoiceId: string, at: Date): Promise<bigint> {
  const { id } = await sql<{ id: bigint }>`
    WITH seq AS (UPDATE workspaces SET event_seq = event_seq + 1 WHERE id = ${workspaceId} RETURNING event_seq)
    INSERT INTO events (workspace_id, id, type, invoice_id, data, created_at)
    SELECT ${workspaceId}, seq.event_seq, ${type}, ${invoiceId}, jsonb_build_object('invoice', to_jsonb(i)), ${at}
      FROM seq, invoices i WHERE i.workspace_id = ${workspaceId} AND i.id = ${invoiceId}
    RETURNING id`
    .execute(trx)
    .then((result) => result.rows[0]!);
  return id;
}
