import { afterAll } from 'vitest';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startAnvil } from '../../src/chain/anvil.js';
import {
  BASE_SEPOLIA_USDC,
  fundWithUsdc,
  installMulticall3,
  installTestUsdc,
  setEthBalance,
  startBlockProducer,
} from '../../src/chain/local-chain.js';
import { checkNetworks, type Network } from '../../src/chain/networks.js';
import { createRpcClients } from '../../src/chain/rpc-clients.js';
import { createViemChain } from '../../src/chain/viem-chain.js';
import type { ChainDeps } from '../../src/main/services.js';

export interface TestChain extends ChainDeps {
  readonly rpcUrl: string;
  readonly network: Network;
  /**
   * Replaces the newest `depth` blocks by as many new ones (anvil_reorg), with `remine` (raw transaction,
   * block offset) put back, while the block producer mines nothing.
   */
  reorganise(depth: number, remine?: readonly (readonly [string, number])[]): Promise<void>;
  /** A new payer holding `usdc` micro-units. */
  payer(usdc: bigint): Promise<PrivateKeyAccount>;
}

/** A real anvil posing as Base Sepolia with the test USDC, a funded relayer and a block producer; one per test file. */
export async function createTestChain(
  options: {
    confirmations?: number;
    blockSeconds?: number;
    /** Another network than Base Sepolia: its name and chain id (the test USDC sits at the same address). */
    network?: { name: string; chainId: number };
    /** The network's rpcUrls, given the anvil's URL (e.g. fault proxies in front of it); by default the anvil alone. */
    providers?: (rpcUrl: string) => Promise<string[]>;
  } = {},
): Promise<TestChain> {
  const anvil = await startAnvil(options.network && { chainId: options.network.chainId });
  await installTestUsdc(anvil.rpcUrl);
  await installMulticall3(anvil.rpcUrl);
  const relayerKey = generatePrivateKey();
  await setEthBalance(anvil.rpcUrl, privateKeyToAccount(relayerKey).address, 10n ** 20n);
  const producer = startBlockProducer(anvil.rpcUrl, options.blockSeconds ?? 1);
  afterAll(async () => {
    await producer.stop();
    await anvil.stop();
  });
  const [network] = await checkNetworks([
    {
      name: options.network?.name ?? 'base-sepolia',
      chainId: options.network?.chainId ?? 84532,
      rpcUrls: options.providers ? await options.providers(anvil.rpcUrl) : [anvil.rpcUrl],
      usdc: BASE_SEPOLIA_USDC,
      confirmations: options.confirmations ?? 1,
      blockTimeSeconds: options.blockSeconds ?? 1,
    },
  ]);
  const rpc = createRpcClients();
  return {
    rpcUrl: anvil.rpcUrl,
    network: network!,
    networks: [network!],
    chain: createViemChain({ relayerPrivateKey: relayerKey, rpc }),
    rpc,
    // anvil_reorg racing a block being mined loses blocks below the head for good (anvil 1.x).
    reorganise: (depth, remine = []) => producer.paused(() => reorganiseChain(anvil.rpcUrl, depth, remine)),
    async payer(usdc) {
      const account = privateKeyToAccount(generatePrivateKey());
      await fundWithUsdc(anvil.rpcUrl, account.address, usdc);
      return account;
    },
  };
}

/** One JSON-RPC call straight to a node (anvil's own methods included); throws the node's error. */
export async function jsonRpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * Replaces the newest `depth` blocks by as many new ones (anvil_reorg), with `remine` (raw transaction,
 * block offset) put back. anvil then goes on stamping blocks from the replaced blocks' times, behind the
 * wall clock by as long as they were old; a real chain's next blocks carry the time they are made, so the
 * clock is set back to now. Nothing may mine meanwhile (TestChain.reorganise pauses its producer).
 */
async function reorganiseChain(
  rpcUrl: string,
  depth: number,
  remine: readonly (readonly [string, number])[] = [],
): Promise<void> {
  await jsonRpc(rpcUrl, 'anvil_reorg', [depth, remine]);
  await jsonRpc(rpcUrl, 'evm_setTime', [Math.floor(Date.now() / 1000)]);
}
