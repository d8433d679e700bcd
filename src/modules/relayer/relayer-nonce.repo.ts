import type { Executor } from '../../db/database.js';
import type { RelayerNonces } from './relayer-nonce.js';

/**
 * Locks the relayer's nonce row on a chain until the transaction ends, creating it when missing, and
 * reads it. Every signer of a settlement with this relayer on this chain, in any process, waits here.
 */
export async function lockRelayerNonces(trx: Executor, chainId: number, relayer: string): Promise<RelayerNonces> {
  await trx
    .insertInto('relayer_nonces')
    .values({ chain_id: chainId, relayer, next_nonce: 0n })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
  const row = await trx
    .selectFrom('relayer_nonces')
    .select(['next_nonce', 'behind_at', 'behind_since'])
    .where('chain_id', '=', chainId)
    .where('relayer', '=', relayer)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return {
    next: Number(row.next_nonce),
    ...(row.behind_at !== null &&
      row.behind_since && { behind: { at: Number(row.behind_at), since: row.behind_since } }),
  };
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
