/** How long a nonce handed out here may stay unseen by the node before it is taken for never sent. */
export const UNSENT_NONCE_TIMEOUT_MS = 30_000;

/**
 * Hands out transaction nonces of one sender on one chain, so that settlements signed concurrently in this
 * process never share a nonce (of two transactions with one nonce, only one can ever be mined).
 *
 * Each allocation asks the node for the sender's pending transaction count and hands out the larger of
 * that and the next local nonce: the local counter covers transactions signed here but not yet sent, the
 * node's count covers transactions sent by anyone (e.g. another process). Across processes this only works
 * when the caller serialises sign-and-broadcast with a database lock, held until the bytes reach the node.
 *
 * A signed transaction that is never sent leaves a gap, and every later one waits behind it on the node.
 * So when the node's count stays at a nonce this allocator handed out more than UNSENT_NONCE_TIMEOUT_MS
 * ago, that nonce is handed out again. The worst case (it was sent after all, very late) is a refused
 * broadcast, never a double payment: each authorization can be used once.
 *
 * Allocations run one at a time in call order; a failed read fails that call only.
 */
export class NonceAllocator {
  #next: number | undefined;
  // Nonces handed out at or above the node's count, and when.
  readonly #handedOut = new Map<number, number>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly pendingCount: () => Promise<number>,
    private readonly now: () => number = Date.now,
  ) {}

  next(): Promise<number> {
    const allocation = this.#queue.then(async () => this.#allocate(await this.pendingCount()));
    this.#queue = allocation.catch(() => undefined);
    return allocation;
  }

  /**
   * Forgets the local counter, so the next allocation takes the node's count as it is. Called when a node
   * refuses a nonce as too low or taken: someone else used it.
   */
  resync(): void {
    this.#next = undefined;
    this.#handedOut.clear();
  }

  #allocate(onChain: number): number {
    for (const nonce of this.#handedOut.keys()) if (nonce < onChain) this.#handedOut.delete(nonce);
    let nonce: number;
    if (this.#next === undefined || this.#next <= onChain) {
      nonce = onChain;
      this.#next = onChain + 1;
    } else if ((this.#handedOut.get(onChain) ?? -Infinity) < this.now() - UNSENT_NONCE_TIMEOUT_MS) {
      // The node still waits for this nonce: it was handed out long ago (or never here) and not sent.
      nonce = onChain;
    } else {
      nonce = this.#next++;
    }
    this.#handedOut.set(nonce, this.now());
    return nonce;
  }
}
