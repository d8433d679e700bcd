import { describe, expect, it } from 'vitest';
import { NonceAllocator, UNSENT_NONCE_TIMEOUT_MS } from '../../src/chain/nonce-allocator.js';

/** A node whose pending count the test sets, and a clock the test moves. */
function setup(initialCount = 7) {
  const node = { count: initialCount, reads: 0, fail: false };
  const clock = { now: 1_000_000 };
  const allocator = new NonceAllocator(
    async () => {
      node.reads += 1;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5));
      if (node.fail) throw new Error('node down');
      return node.count;
    },
    () => clock.now,
  );
  return { node, clock, allocator };
}

describe('NonceAllocator', () => {
  it('hands out increasing nonces from the pending count to concurrent callers', async () => {
    const { allocator } = setup();
    const nonces = await Promise.all(Array.from({ length: 20 }, () => allocator.next()));
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => 7 + i));
  });

  it('follows the node when another sender moved it ahead', async () => {
    const { node, allocator } = setup();
    expect(await allocator.next()).toBe(7);
    node.count = 12;
    expect(await allocator.next()).toBe(12);
    expect(await allocator.next()).toBe(13);
  });

  it('keeps counting past nonces handed out but not yet seen by the node', async () => {
    const { node, clock, allocator } = setup();
    expect(await allocator.next()).toBe(7);
    clock.now += UNSENT_NONCE_TIMEOUT_MS - 1;
    expect(await allocator.next()).toBe(8);
    node.count = 8;
    clock.now += UNSENT_NONCE_TIMEOUT_MS; // 8 was handed out long ago, but 7 was sent: no gap
    expect(await allocator.next()).toBe(9);
  });

  it('hands out again a nonce the node still waits for long after it was handed out', async () => {
    const { node, clock, allocator } = setup();
    expect(await allocator.next()).toBe(7); // never sent
    expect(await allocator.next()).toBe(8); // sent, waits behind 7
    clock.now += UNSENT_NONCE_TIMEOUT_MS + 1;
    expect(await allocator.next()).toBe(7);
    expect(await allocator.next()).toBe(9);
    node.count = 10;
    expect(await allocator.next()).toBe(10);
  });

  it('fails only the call whose read failed', async () => {
    const { node, allocator } = setup();
    expect(await allocator.next()).toBe(7);
    node.fail = true;
    await expect(allocator.next()).rejects.toThrow('node down');
    node.fail = false;
    expect(await allocator.next()).toBe(8);
  });

  it('takes the node’s count as it is after a resync', async () => {
    const { node, allocator } = setup();
    await Promise.all([allocator.next(), allocator.next(), allocator.next()]);
    node.count = 8;
    allocator.resync();
    expect(await allocator.next()).toBe(8);
  });
});
