import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Address } from 'viem';
import { startAnvil } from '../chain/anvil.js';
import {
  BASE_SEPOLIA_USDC,
  fundWithUsdc,
  installMulticall3,
  installTestUsdc,
  setEthBalance,
  startBlockProducer,
  usdcBalance,
} from '../chain/local-chain.js';
import { LOCAL_CHAIN_ID, LOCAL_NETWORK_NAME, type NetworkConfig } from '../config/config.js';

export interface LocalNetwork {
  readonly network: NetworkConfig;
  /** What the demo buyer holds after the top-up, in micro-units. */
  readonly buyerUsdc: bigint;
  stop(): Promise<void>;
}

/** Two-second blocks: with automine alone, confirmations would grow only when someone transacts. */
const BLOCK_SECONDS = 2;
const DEMO_BUYER_USDC = 1_000n * 1_000_000n;
/** Under DATA_DIR/chain: where the running demo's anvil answers, for `npm run pay`. */
export const RPC_URL_FILE = 'rpc-url';

/**
 * The local demo network: a real anvil posing as Base Sepolia (chain 84532) with the test USDC at the
 * Base Sepolia address, a block every two seconds, the chain saved under DATA_DIR/chain, and the demo
 * buyer topped up to 1,000 USDC and 1 ETH of gas, and each relayer account to 100 ETH.
 */
export async function startLocalNetwork(
  dataDir: string,
  accounts: { buyer: Address; relayers: readonly Address[] },
): Promise<LocalNetwork> {
  const chainDir = path.join(dataDir, 'chain');
  mkdirSync(chainDir, { recursive: true });
  const pidFile = path.join(chainDir, 'anvil.pid');
  await stopOrphanedAnvil(pidFile);
  const anvil = await startAnvil({ statePath: path.join(chainDir, 'anvil-state.json') });
  writeFileSync(pidFile, String(anvil.pid));
  try {
    await installTestUsdc(anvil.rpcUrl);
    await installMulticall3(anvil.rpcUrl);
    for (const relayer of accounts.relayers) await setEthBalance(anvil.rpcUrl, relayer, 100n * 10n ** 18n);
    await topUp(anvil.rpcUrl, accounts.buyer);
    // Gas, so that the demo buyer can also pay by a plain transfer (`npm run pay -- --transfer <url>`).
    await setEthBalance(anvil.rpcUrl, accounts.buyer, 10n ** 18n);
    writeFileSync(path.join(chainDir, RPC_URL_FILE), anvil.rpcUrl);
  } catch (error) {
    await anvil.stop();
    throw error;
  }
  const producer = startBlockProducer(anvil.rpcUrl, BLOCK_SECONDS);
  return {
    network: {
      name: LOCAL_NETWORK_NAME,
      chainId: LOCAL_CHAIN_ID,
      rpcUrls: [anvil.rpcUrl],
      usdc: BASE_SEPOLIA_USDC,
      confirmations: 1,
      blockTimeSeconds: BLOCK_SECONDS,
    },
    buyerUsdc: DEMO_BUYER_USDC,
    stop: async () => {
      await producer.stop();
      await anvil.stop();
    },
  };
}

/** Mints what the buyer lacks of DEMO_BUYER_USDC; the chain is kept across restarts, so this is a top-up. */
async function topUp(rpcUrl: string, buyer: Address): Promise<void> {
  const missing = DEMO_BUYER_USDC - (await usdcBalance(rpcUrl, buyer));
  if (missing > 0n) await fundWithUsdc(rpcUrl, buyer, missing);
}

/**
 * After `kill -9` of the service its anvil lives on and keeps saving the chain file. It is ended (asked
 * first, so it saves the chain one last time) before a new one loads that file, so two never write it.
 */
async function stopOrphanedAnvil(pidFile: string): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  const running = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('anvil');
    } catch {
      return false;
    }
  };
  if (!running()) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; running() && waited < 3000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (running()) process.kill(pid, 'SIGKILL');
}
