import { describe, expect, it } from 'vitest';
import { generatePrivateKey } from 'viem/accounts';
import { createViemChain } from '../../src/chain/viem-chain.js';
import { CanonicalChain } from '../../src/modules/payment-finality/index.js';
import { createTestChain, jsonRpc } from '../support/chain.js';
import { startRpcProxy } from '../support/rpc-proxy.js';

// The canonical chain as payment finality follows it, on a real anvil behind a proxy that counts every
// call: what a step costs while the chain grows, and what it sees when anvil_reorg replaces blocks.
const chain = await createTestChain();
const proxy = await startRpcProxy(chain.rpcUrl);
const network = { ...chain.network, rpcUrls: [proxy.url] };
const port = createViemChain({ relayerPrivateKey: generatePrivateKey() });

const rpc = <T>(method: string, params: unknown[] = []) => jsonRpc<T>(chain.rpcUrl, method, params);

const mine = (blocks: number) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]);
const head = async () => BigInt(await rpc<string>('eth_blockNumber'));
const hashAt = async (height: bigint) =>
  (await rpc<{ hash: string }>('eth_getBlockByNumber', [`0x${height.toString(16)}`, false])).hash.toLowerCase();

describe('following the canonical chain', () => {
  it('reads its window once, then one block a step while the chain only grows', async () => {
    await mine(40);
    const top = await head();
    const followed = new CanonicalChain((height) => port.blockHeader(network, height));
    proxy.reset();
    const first = await followed.follow(top - 30n);
    expect(first.head).toBe(top);
    expect(proxy.total()).toBe(31);
    for (const height of [top - 30n, top - 15n, top]) expect(first.hashes.get(height)).toBe(await hashAt(height));

    for (let step = 0; step < 5; step++) {
      await mine(1);
      proxy.reset();
      const next = await followed.follow(top - 30n);
      expect(next.head).toBe(top + BigInt(step) + 1n);
      // One read, however deep the window: the latest block, linked to the one known below it.
      expect(proxy.calls()).toEqual({ eth_getBlockByNumber: 1 });
    }
    proxy.reset();
    await mine(3);
    await followed.follow(top - 30n);
    // Blocks missed between two steps are read too, and linked.
    expect(proxy.calls()).toEqual({ eth_getBlockByNumber: 3 });
  });

  it('finds the blocks a reorganisation replaced, and keeps the ones below', async () => {
    await mine(20);
    const followed = new CanonicalChain((height) => port.blockHeader(network, height));
    const top = await head();
    const before = await followed.follow(top - 10n);
    const kept = before.hashes.get(top - 4n);
    const replaced = before.hashes.get(top - 2n);

    await rpc('anvil_reorg', [3, []]);
    await mine(1);
    proxy.reset();
    const after = await followed.follow(top - 10n);
    expect(after.head).toBe(top + 1n);
    for (const height of [top - 2n, top - 1n, top]) {
      expect(after.hashes.get(height)).toBe(await hashAt(height));
    }
    expect(after.hashes.get(top - 2n)).not.toBe(replaced);
    expect(after.hashes.get(top - 4n)).toBe(kept);
    // The latest block, then the replaced ones down to the block both chains share.
    expect(proxy.calls()).toEqual({ eth_getBlockByNumber: 4 });
  });

  it('asks nothing below the lowest height it is given, and forgets what lies under it', async () => {
    await mine(10);
    const top = await head();
    const followed = new CanonicalChain((height) => port.blockHeader(network, height));
    await followed.follow(top - 5n);
    const raised = await followed.follow(top - 2n);
    expect([...raised.hashes.keys()].sort((a, b) => Number(a - b))).toEqual([top - 2n, top - 1n, top]);
  });
});
