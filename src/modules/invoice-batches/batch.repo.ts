import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import { itemKey } from './batch.js';

export type Binding = 'new' | 'resume' | 'reused' | 'evicted';

/**
 * Binds the batch key to this request, or reports how it is already bound: to the same request
 * (`resume`), to another (`reused`), or evicted. A new binding beyond `retained` evicts the oldest in
 * the same transaction. The workspace row lock serialises bindings.
 */
export async function bindBatch(
  trx: Executor,
  workspaceId: WorkspaceId,
  binding: {
    key: string;
    requestHash: Buffer;
    itemCount: number;
    at: Date;
    retained: number;
    evictedKeyLifetimeSeconds: number;
  },
): Promise<Binding> {
  // NO KEY UPDATE: serialises bindings without waiting for rows that merely reference the workspace.
  await trx.selectFrom('workspaces').select('id').where('id', '=', workspaceId).forNoKeyUpdate().executeTakeFirst();
  const existing = await trx
    .selectFrom('invoice_batches')
    .select(['request_hash', 'evicted_at'])
    .where('workspace_id', '=', workspaceId)
    .where('idempotency_key', '=', binding.key)
    .executeTakeFirst();
  if (existing) {
    if (!existing.request_hash.equals(binding.requestHash)) return 'reused';
    return existing.evicted_at ? 'evicted' : 'resume';
  }
  await trx
    .insertInto('invoice_batches')
    .values({
      workspace_id: workspaceId,
      idempotency_key: binding.key,
      request_hash: binding.requestHash,
      item_count: binding.itemCount,
      created_at: binding.at,
    })
    .execute();
  await evictBeyond(trx, workspaceId, binding.retained, binding.at, binding.evictedKeyLifetimeSeconds);
  return 'new';
}

/**
 * Evicts the oldest retained bindings beyond `retained`. Their item keys are not deleted but given the
 * ordinary idempotency lifetime from now: a retry of the evicted batch already past its binding check
 * still replays its items instead of creating them again, and the keys go with the daily cleanup.
 */
async function evictBeyond(
  trx: Executor,
  workspaceId: WorkspaceId,
  retained: number,
  at: Date,
  keyLifetimeSeconds: number,
): Promise<void> {
  const { rows } = await sql<{ idempotency_key: string; item_count: number }>`
    UPDATE invoice_batches b SET evicted_at = ${at}
      FROM (SELECT idempotency_key FROM invoice_batches
             WHERE workspace_id = ${workspaceId} AND evicted_at IS NULL
             ORDER BY created_at DESC, idempotency_key DESC OFFSET ${retained}) old
     WHERE b.workspace_id = ${workspaceId} AND b.idempotency_key = old.idempotency_key
    RETURNING b.idempotency_key, b.item_count`.execute(trx);
  const keys = rows.flatMap((row) =>
    Array.from({ length: row.item_count }, (_, index) => itemKey(row.idempotency_key, index)),
  );
  if (keys.length === 0) return;
  await trx
    .updateTable('idempotency_keys')
    .set({ expires_at: new Date(at.getTime() + keyLifetimeSeconds * 1000) })
    .where('workspace_id', '=', workspaceId)
    .where('scope', '=', 'invoices.create')
    .where('key', 'in', keys)
    .execute();
}
