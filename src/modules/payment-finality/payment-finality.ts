import type { UnfinalPayment } from './payment-finality.repo.js';

/** What one look at the chain decided for the recorded payments not final yet. */
export interface FinalityVerdicts {
  /** Deep enough: never re-checked again. */
  readonly final: UnfinalPayment[];
  /** Their block is no longer the canonical one at its height: their receipt decides whether they are reverted. */
  readonly suspect: UnfinalPayment[];
}

/**
 * The finality rule, pure. A payment whose block is still the canonical block at its height is final
 * once `head − blockNumber + 1 ≥ finalityBlocks`, and waits otherwise. One whose height holds another
 * block is suspect. A height past the head (a node behind, or a reorganisation to a shorter chain) decides
 * nothing yet: the next look will.
 */
export function judgeFinality(
  payments: readonly UnfinalPayment[],
  chain: { readonly head: bigint; readonly hashes: ReadonlyMap<bigint, string> },
  finalityBlocks: number,
): FinalityVerdicts {
  const final: UnfinalPayment[] = [];
  const suspect: UnfinalPayment[] = [];
  for (const payment of payments) {
    const canonical = chain.hashes.get(payment.blockNumber);
    if (canonical === undefined) continue;
    if (canonical !== payment.blockHash) suspect.push(payment);
    else if (chain.head - payment.blockNumber + 1n >= BigInt(finalityBlocks)) final.push(payment);
  }
  return { final, suspect };
}
