import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { RelayerNonces } from './relayer-nonce.js';

/**
 * Locks the nonce row of one of `relayers` on a chain until the transaction ends, creating the rows when
 * missing, and reads it: the first account whose row no other transaction holds, or, when every one is
 * held, the first account's (waiting for it). Every signer of a settlement with an account on this chain,
 * in any process, takes its nonce under this lock, so settlements signed at once spread over the accounts.
 */
export async function lockRelayerNonces(
  trx: Executor,
  chainId: number,
  relayers: readonly string[],
): Promise<{ relayer: string; nonces: RelayerNonces }> {
  await trx
    .insertInto('relayer_nonces')
    .values(relayers.map((relayer) => ({ chain_id: chainId, relayer, next_nonce: 0n })))
    .onConflict((conflict) => conflict.doNothing())
    .execute();
  // Rows in the configured order; a free one is taken without waiting, else the first account is waited for.
  const lockFirst = async (skipLocked: boolean) =>
    (
      await sql<NonceRow>`
        SELECT relayer, next_nonce, behind_at, behind_since FROM relayer_nonces
         WHERE chain_id = ${chainId} AND relayer = ANY(${relayers}::text[])
         ORDER BY array_position(${relayers}::text[], relayer)
         LIMIT 1 FOR UPDATE ${skipLocked ? sql`SKIP LOCKED` : sql``}`.execute(trx)
    ).rows[0];
  const row = (relayers.length > 1 ? await lockFirst(true) : undefined) ?? (await lockFirst(false));
  if (!row) throw new Error(`no relayer nonce row on chain ${chainId}`);
  return {
    relayer: row.relayer,
    nonces: {
      next: Number(row.next_nonce),
      ...(row.behind_at !== null &&
        row.behind_since && { behind: { at: Number(row.behind_at), since: row.behind_since } }),
    },
  };
}

interface NonceRow {
  relayer: string;
  next_nonce: string;
  behind_at: string | null;
  behind_since: Date | null;
}

export async function saveRelayerNonces(
  trx: Executor,
  chainId: number,
  relayer: string,
  nonces: RelayerNonces,
): Promise<void> {
  await trx
    .updateTable('relayer_nonces')
    .set({
      next_nonce: BigInt(nonces.next),
      behind_at: nonces.behind ? BigInt(nonces.behind.at) : null,
      behind_since: nonces.behind?.since ?? null,
    })
    .where('chain_id', '=', chainId)
    .where('relayer', '=', relayer)
    .execute();
}
