import { describe, expect, it } from 'vitest';
import {
  UNSENT_NONCE_TIMEOUT_MS,
  nextRelayerNonce,
  type RelayerNonces,
} from '../../src/modules/relayer/relayer-nonce.js';

const at = (ms: number) => new Date(1_700_000_000_000 + ms);

/** Takes `count` nonces one after another at time `ms`, with the node staying at `onChain`. */
function take(stored: RelayerNonces | undefined, onChain: number, count: number, ms = 0) {
  const nonces: number[] = [];
  for (let i = 0; i < count; i++) {
    const next = nextRelayerNonce(stored, onChain, at(ms));
    nonces.push(next.nonce);
    stored = next.stored;
  }
  return { nonces, stored: stored! };
}

describe('the next relayer nonce', () => {
  it('starts at the node’s pending count and counts on past nonces whose bytes are not sent yet', () => {
    expect(take(undefined, 7, 4).nonces).toEqual([7, 8, 9, 10]);
  });

  it('follows the node when another sender moved it ahead', () => {
    const { stored } = take(undefined, 7, 2);
    expect(take(stored, 12, 2).nonces).toEqual([12, 13]);
  });

  it('hands out a nonce again once the node has stayed at it for the timeout: it was never sent', () => {
    // 7, 8, 9 handed out at 0; the node stays at 7 (7 never reached it), seen behind from then on.
    const { stored } = take(undefined, 7, 3);
    const waiting = take(stored, 7, 1, UNSENT_NONCE_TIMEOUT_MS - 1);
    expect(waiting.nonces).toEqual([10]);
    const again = take(waiting.stored, 7, 2, UNSENT_NONCE_TIMEOUT_MS);
    expect(again.nonces).toEqual([7, 11]);
  });

  it('does not hand out a nonce again while the node keeps moving', () => {
    let { stored } = take(undefined, 7, 3);
    const nonces: number[] = [];
    for (let step = 1; step <= 3; step++) {
      // Each look is a timeout later, but the node has advanced by one each time: nothing is stuck.
      const next = take(stored, 7 + step, 1, step * UNSENT_NONCE_TIMEOUT_MS);
      nonces.push(...next.nonces);
      stored = next.stored;
    }
    expect(nonces).toEqual([10, 11, 12]);
  });
});
