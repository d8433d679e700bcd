import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { isWebhookEvent, queueWebhookDelivery } from '../webhooks/index.js';

export interface NewEvent {
  readonly type: string;
  readonly invoiceId?: string;
  readonly paymentIntentId?: string;
  readonly data: unknown;
  readonly at: Date;
}

/**
 * Appends a change-feed event inside the caller's transaction — and, for webhook kinds, its delivery.
 * The id comes from the workspace's counter; its row lock, held to commit, makes commit order equal id
 * order within a workspace.
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
  if (isWebhookEvent(event.type)) {
    await queueWebhookDelivery(trx, workspaceId, { eventId: id, type: event.type, invoiceId: event.invoiceId ?? null, data: event.data, at: event.at });
  }
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

/** One retained event of a workspace. */
export function findEvent(db: Executor, workspaceId: WorkspaceId, id: bigint) {
  return db.selectFrom('events').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}
