import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { encodeFunctionData, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type Anvil } from '../../src/chain/anvil.js';
import { multicall3Abi } from '../../src/chain/multicall3.artifact.js';
import {
  BASE_SEPOLIA_USDC,
  MULTICALL3_ADDRESS,
  createLocalPublicClient,
  fundWithUsdc,
  installMulticall3,
  installTestUsdc,
  mineBlocks,
  startBlockProducer,
} from '../../src/chain/local-chain.js';
import { testUsdcAbi } from '../../src/chain/test-usdc.artifact.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const buyer: Address = '0x00000000000000000000000000000000000b0b0b';

async function answers(rpcUrl: string): Promise<boolean> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    return response.ok;
  } catch {
    return false;
  }
}

describe('startAnvil', () => {
  it('starts anvils with chain id 84532 on free ports and stops them', async () => {
    const [a, b] = await Promise.all([startAnvil({ accounts: 1 }), startAnvil({ accounts: 1 })]);
    try {
      expect(a.chainId).toBe(84532);
      expect(await createLocalPublicClient(a.rpcUrl).getChainId()).toBe(84532);
      expect(a.rpcUrl).not.toBe(b.rpcUrl);
      expect(new URL(a.rpcUrl).port).not.toBe('8545');
      expect(await answers(b.rpcUrl)).toBe(true);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    expect(await answers(a.rpcUrl)).toBe(false);
    await a.stop(); // idempotent
  });

  it('kills its anvil when the process that started it exits', async () => {
    const script = [
      `import { startAnvil } from ${JSON.stringify(`${ROOT}src/chain/anvil.ts`)};`,
      'const anvil = await startAnvil({ accounts: 1 });',
      'console.log(anvil.rpcUrl);',
      'process.exit(0);',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise((resolve) => child.once('exit', resolve));
    const rpcUrl = output.trim();
    expect(rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // SIGKILL is asynchronous: give the kernel a moment.
    for (let i = 0; i < 20 && (await answers(rpcUrl)); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await answers(rpcUrl)).toBe(false);
  });

  it('mines on a block time when asked, and fundWithUsdc waits for the block', async () => {
    const anvil = await startAnvil({ accounts: 1, blockTimeSeconds: 1 });
    try {
      await installTestUsdc(anvil.rpcUrl);
      await fundWithUsdc(anvil.rpcUrl, buyer, 5_000_000n);
      const balance = await createLocalPublicClient(anvil.rpcUrl).readContract({
        address: BASE_SEPOLIA_USDC,
        abi: testUsdcAbi,
        functionName: 'balanceOf',
        args: [buyer],
      });
      expect(balance).toBe(5_000_000n);
    } finally {
      await anvil.stop();
    }
  });
});

describe('local chain helpers', () => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil({ accounts: 1 });
  });
  afterAll(async () => anvil?.stop());

  it('mines blocks on demand and on an interval, and stops the interval', async () => {
    const client = createLocalPublicClient(anvil.rpcUrl);
    const start = await client.getBlockNumber();
    await mineBlocks(anvil.rpcUrl, 3);
    expect(await client.getBlockNumber()).toBe(start + 3n);

    const producer = startBlockProducer(anvil.rpcUrl, 0.05);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await producer.stop();
    const afterStop = await client.getBlockNumber();
    expect(afterStop).toBeGreaterThanOrEqual(start + 5n);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await client.getBlockNumber()).toBe(afterStop);
  });

  it('answers viem multicalls and the x402 tryAggregate through the installed Multicall3', async () => {
    await installTestUsdc(anvil.rpcUrl);
    await installMulticall3(anvil.rpcUrl);
    await fundWithUsdc(anvil.rpcUrl, buyer, 7_000_000n);
    const client = createLocalPublicClient(anvil.rpcUrl);
    const token = { address: BASE_SEPOLIA_USDC, abi: testUsdcAbi } as const;

    const results = await client.multicall({
      contracts: [
        { ...token, functionName: 'balanceOf', args: [buyer] },
        { ...token, functionName: 'name' },
        { ...token, functionName: 'transfer', args: [buyer, 1n] }, // reverts: the caller holds nothing
      ],
    });
    expect(results.map((r) => r.status)).toEqual(['success', 'success', 'failure']);
    expect(results[0]?.result).toBe(7_000_000n);

    // Not a view function (it CALLs), so simulate it the way an eth_call does.
    const { result: tried } = await client.simulateContract({
      address: MULTICALL3_ADDRESS,
      abi: multicall3Abi,
      functionName: 'tryAggregate',
      args: [
        false,
        [
          { target: BASE_SEPOLIA_USDC, callData: encodeFunctionData({ abi: testUsdcAbi, functionName: 'version' }) },
          {
            target: BASE_SEPOLIA_USDC,
            callData: encodeFunctionData({ abi: testUsdcAbi, functionName: 'transfer', args: [buyer, 1n] }),
          },
        ],
      ],
    });
    expect(tried.map((r) => r.success)).toEqual([true, false]);
  });
});
