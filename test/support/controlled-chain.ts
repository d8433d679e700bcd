import { afterAll } from 'vitest';
import { createTestClient, http, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startAnvil } from '../../src/chain/anvil.js';
import {
  BASE_SEPOLIA_USDC,
  createLocalPublicClient,
  fundWithUsdc,
  installMulticall3,
  installTestUsdc,
  localChain,
  setEthBalance,
} from '../../src/chain/local-chain.js';
import { checkNetworks, type Network } from '../../src/chain/networks.js';
import { createViemChain } from '../../src/chain/viem-chain.js';
import type { NetworkConfig } from '../../src/config/config.js';
import type { ChainDeps } from '../../src/main/services.js';

/**
 * A real anvil whose blocks only the test makes: automine can be switched off, so a settlement waits in
 * the mempool until the test mines, and every block's wall-clock time is recorded (latency measurements).
 */
export interface ControlledChain extends ChainDeps {
  readonly rpcUrl: string;
  readonly network: Network;
  /** The NETWORKS entry for a service process. */
  readonly networkConfig: NetworkConfig;
  readonly relayerPrivateKey: `0x${string}`;
  readonly relayer: `0x${string}`;
  /** A new payer holding `usdc` micro-units. Needs automine on (the mint waits for its receipt). */
  payer(usdc: bigint): Promise<PrivateKeyAccount>;
  setAutomine(enabled: boolean): Promise<void>;
  /** Mines `count` blocks, one at a time, recording when each exists. */
  mine(count?: number): Promise<void>;
  /** Mines a block every `intervalMs` until stopped; never overlaps two mines. */
  startMining(intervalMs: number): void;
  stopMining(): Promise<void>;
  /** `Date.now()` right after the test mined this block; undefined for blocks it did not mine. */
  minedAt(blockNumber: bigint): number | undefined;
  /** Whether the node knows the transaction (pending or mined). */
  knows(hash: Hash): Promise<boolean>;
  /** Forgets a pending transaction, as a node restart or a mempool eviction would. */
  drop(hash: Hash): Promise<void>;
  transactionCount(address: `0x${string}`): Promise<number>;
  /** The base fee of the next block mined, in wei. */
  setNextBaseFee(wei: bigint): Promise<void>;
}

export async function createControlledChain(options: {
  confirmations: number;
  blockTimeSeconds?: number;
}): Promise<ControlledChain> {
  const anvil = await startAnvil();
  await installTestUsdc(anvil.rpcUrl);
  await installMulticall3(anvil.rpcUrl);
  const relayerPrivateKey = generatePrivateKey();
  const relayer = privateKeyToAccount(relayerPrivateKey).address;
  await setEthBalance(anvil.rpcUrl, relayer, 10n ** 20n);
  const test = createTestClient({
    mode: 'anvil',
    chain: localChain(anvil.rpcUrl),
    transport: http(anvil.rpcUrl),
    cacheTime: 0,
  });
  const reader = createLocalPublicClient(anvil.rpcUrl);
  const networkConfig: NetworkConfig = {
    name: 'base-sepolia',
    chainId: 84532,
    rpcUrls: [anvil.rpcUrl],
    usdc: BASE_SEPOLIA_USDC,
    confirmations: options.confirmations,
    blockTimeSeconds: options.blockTimeSeconds ?? 1,
  };
  const [network] = await checkNetworks([networkConfig]);

  const minedAt = new Map<bigint, number>();
  let mining: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const mineOne = async () => {
    await test.mine({ blocks: 1 });
    const at = Date.now();
    minedAt.set(await reader.getBlockNumber(), at);
  };
  const mine = async (count = 1) => {
    // Chained: with automine off only the test makes blocks, so the number read after a mine is that block.
    const run = mining.then(async () => {
      for (let i = 0; i < count; i++) await mineOne();
    });
    mining = run.catch(() => {});
    return run;
  };
  const stopMining = async () => {
    clearTimeout(timer);
    timer = undefined;
    await mining;
  };
  afterAll(async () => {
    await stopMining();
    await anvil.stop();
  });

  return {
    rpcUrl: anvil.rpcUrl,
    network: network!,
    networks: [network!],
    networkConfig,
    chain: createViemChain({ relayerPrivateKey }),
    relayerPrivateKey,
    relayer,
    async payer(usdc) {
      const account = privateKeyToAccount(generatePrivateKey());
      await fundWithUsdc(anvil.rpcUrl, account.address, usdc);
      return account;
    },
    setAutomine: (enabled) => test.setAutomine(enabled),
    mine,
    startMining(intervalMs) {
      const tick = () => {
        void mine(1)
          .catch(() => {})
          .then(() => {
            if (timer !== undefined) timer = setTimeout(tick, intervalMs);
          });
      };
      timer = setTimeout(tick, intervalMs);
    },
    stopMining,
    minedAt: (blockNumber) => minedAt.get(blockNumber),
    async knows(hash) {
      return reader.getTransaction({ hash }).then(
        () => true,
        () => false,
      );
    },
    drop: (hash) => test.dropTransaction({ hash }),
    transactionCount: (address) => reader.getTransactionCount({ address, blockTag: 'pending' }),
    setNextBaseFee: (wei) => test.setNextBlockBaseFeePerGas({ baseFeePerGas: wei }),
  };
}
