import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { PaymentIntentId } from '../payment-engine/index.js';

// The finality columns of payment_intents (block_hash, finalized_at: migration 0005) are this module's:
// the payment engine writes block_hash with the payment, this watch reads it and sets finalized_at.

/** A recorded payment whose block is not final yet (payment-finality re-checks it). */
export interface UnfinalPayment {
  readonly workspaceId: WorkspaceId;
  readonly id: PaymentIntentId;
  readonly txHash: `0x${string}`;
  readonly blockNumber: bigint;
  readonly blockHash: `0x${string}`;
}

/** The network's recorded payments not final yet, lowest block first (payment_intents_unfinal_idx). */
export async function unfinalPayments(db: Executor, network: string, limit: number): Promise<UnfinalPayment[]> {
  const rows = await db
    .selectFrom('payment_intents')
    .select(['workspace_id', 'id', 'tx_hash', 'block_number', 'block_hash'])
    .where('network', '=', network)
    .where('status', '=', 'succeeded')
    .where('block_hash', 'is not', null)
    .where('finalized_at', 'is', null)
    .orderBy('block_number')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    workspaceId: row.workspace_id as WorkspaceId,
    id: row.id as PaymentIntentId,
    txHash: row.tx_hash as `0x${string}`,
    blockNumber: row.block_number!,
    blockHash: row.block_hash as `0x${string}`,
  }));
}

/** Marks recorded payments final: their blocks are deep enough never to be re-checked. */
export async function markFinal(
  db: Executor,
  payments: readonly Pick<UnfinalPayment, 'workspaceId' | 'id'>[],
  at: Date,
): Promise<void> {
  if (payments.length === 0) return;
  // By workspace and id, the primary key: an id alone has no index and would scan every payment.
  await sql`UPDATE payment_intents p SET finalized_at = ${at}
              FROM unnest(${payments.map((payment) => payment.workspaceId)}::text[],
                          ${payments.map((payment) => payment.id)}::text[]) AS f(workspace_id, id)
             WHERE p.workspace_id = f.workspace_id AND p.id = f.id`.execute(db);
}
