/** How long the node may stay at a nonce handed out here before that nonce is taken for never sent. */
export const UNSENT_NONCE_TIMEOUT_MS = 30_000;

/** The relayer's nonce sequence on one chain, as stored (relayer_nonces). */
export interface RelayerNonces {
  readonly next: number;
  /** The node's pending count when last seen behind `next`, and since when. */
  readonly behind?: { readonly at: number; readonly since: Date };
}

/**
 * The nonce of the next settlement, from the stored sequence and the node's pending transaction count
 * (`onChain`, which counts transactions sent by anyone and still in the mempool).
 *
 * Usually the larger of the two: the sequence covers nonces handed out whose bytes are committed but not
 * yet sent, the node covers transactions sent elsewhere. When the node stays at a nonce the sequence has
 * passed for UNSENT_NONCE_TIMEOUT_MS, that nonce was handed out and never sent (the stored bytes of a
 * settlement whose retry never came): it is handed out again, since every later transaction waits
 * behind it. The worst case, the old bytes sent after all, is a refused broadcast and a new signature,
 * never a double payment: the token lets each authorization run once.
 */
export function nextRelayerNonce(
  stored: RelayerNonces | undefined,
  onChain: number,
  now: Date,
): { nonce: number; stored: RelayerNonces } {
  if (!stored || stored.next <= onChain) return { nonce: onChain, stored: { next: onChain + 1 } };
  const behind = stored.behind?.at === onChain ? stored.behind : { at: onChain, since: now };
  if (now.getTime() - behind.since.getTime() >= UNSENT_NONCE_TIMEOUT_MS) {
    // Handed out again; the next re-use of this nonce must wait another full timeout.
    return { nonce: onChain, stored: { next: stored.next, behind: { at: onChain, since: now } } };
  }
  return { nonce: stored.next, stored: { next: stored.next + 1, behind } };
}
