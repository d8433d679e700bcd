import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startAnvil } from '../../src/chain/anvil.js';
import {
  BASE_SEPOLIA_USDC,
  MULTICALL3_ADDRESS,
  installMulticall3,
  installTestUsdc,
} from '../../src/chain/local-chain.js';
import { NetworkCheckError, checkNetworks } from '../../src/chain/networks.js';
import type { NetworkConfig } from '../../src/config/config.js';

const anvil = await startAnvil();
afterAll(() => anvil.stop());
await installTestUsdc(anvil.rpcUrl);
await installMulticall3(anvil.rpcUrl);
const good: NetworkConfig = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrls: [anvil.rpcUrl],
  usdc: BASE_SEPOLIA_USDC,
  confirmations: 1,
};

describe('network checks at start', () => {
  it('reads the EIP-712 domain of a good network', async () => {
    expect(await checkNetworks([good])).toEqual([{ ...good, tokenName: 'USDC', tokenVersion: '2' }]);
  });

  it('starts a network on the providers that answer, and reports the others', async () => {
    const warnings: string[] = [];
    const urls = ['http://127.0.0.1:9/v2/secret-key', anvil.rpcUrl];
    expect(await checkNetworks([{ ...good, rpcUrls: urls }], (line) => warnings.push(line))).toEqual([
      { ...good, rpcUrls: urls, tokenName: 'USDC', tokenVersion: '2' },
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/^network "base-sepolia": RPC 1 \(127\.0\.0\.1:9\) does not answer/),
    ]);
    expect(warnings.join()).not.toContain('secret-key');
  });

  it('refuses a network when none of its providers answers, or one serves another chain', async () => {
    await expect(checkNetworks([{ ...good, rpcUrls: ['http://127.0.0.1:9', 'http://127.0.0.1:10'] }])).rejects.toThrow(
      /RPC 1 \(127\.0\.0\.1:9\) does not answer .*; RPC 2 \(127\.0\.0\.1:10\) does not answer/,
    );
    // Stopped when this test ends: a hook registered inside a test would never run.
    const other = await startAnvil({ chainId: 8453 });
    onTestFinished(() => other.stop());
    await expect(checkNetworks([{ ...good, rpcUrls: [anvil.rpcUrl, other.rpcUrl] }])).rejects.toThrow(
      /RPC 2 \(127\.0\.0\.1:\d+\) serves chain 8453, but chainId 84532 is configured/,
    );
  });

  it.each([
    [
      'a chain id the RPC does not serve',
      { chainId: 8453 },
      'the RPC serves chain 84532, but chainId 8453 is configured',
    ],
    [
      'an address without a token',
      { usdc: '0x0000000000000000000000000000000000000001' as const },
      'no token answers decimals()',
    ],
    ['a contract that is not an EIP-3009 token', { usdc: MULTICALL3_ADDRESS }, 'no token answers decimals()'],
    ['an RPC that does not answer', { rpcUrls: ['http://127.0.0.1:9'] }, 'the RPC does not answer'],
  ])('refuses %s with a clear message', async (_name, change, message) => {
    const attempt = checkNetworks([{ ...good, ...change }]);
    await expect(attempt).rejects.toThrow(NetworkCheckError);
    await expect(attempt).rejects.toThrow(message);
    await expect(attempt).rejects.toThrow('network "base-sepolia"');
  });
});
