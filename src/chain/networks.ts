import { createPublicClient, http, parseAbi, type Address } from 'viem';
import type { NetworkConfig } from '../config/config.js';
import { failoverTransport } from './rpc-failover.js';

/** A configured network, checked against its RPC, with the token's EIP-712 domain read from the chain. */
export interface Network extends NetworkConfig {
  /** EIP-712 domain name and version of the USDC contract (signed by payers, sent as x402 `extra`). */
  readonly tokenName: string;
  readonly tokenVersion: string;
}

/** The network's block interval in seconds: its blockTimeSeconds, 2 when unset, never below 1. */
export function blockSeconds(network: Pick<NetworkConfig, 'blockTimeSeconds'>): number {
  return Math.max(1, network.blockTimeSeconds ?? 2);
}

/** The same in milliseconds. */
export function blockMs(network: Pick<NetworkConfig, 'blockTimeSeconds'>): number {
  return blockSeconds(network) * 1000;
}

export class NetworkCheckError extends Error {
  override name = 'NetworkCheckError';
}

const TIMEOUT_MS = 10_000;

const TOKEN_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

/**
 * Checks every network before the service accepts payments on it: at least one of its providers answers
 * with the configured chain id, and the USDC address holds a 6-decimal token with an EIP-712 name and
 * version. A provider that does not answer is reported through `warn` (the network starts on the others:
 * a provider down for a while must not stop the service); one that serves another chain is an error,
 * since its answers would be about other payments. Throws NetworkCheckError naming the network and what
 * is wrong.
 */
export async function checkNetworks(
  configs: readonly NetworkConfig[],
  warn: (message: string) => void = () => {},
): Promise<Network[]> {
  return Promise.all(configs.map((config) => checkNetwork(config, warn)));
}

async function checkNetwork(config: NetworkConfig, warn: (message: string) => void): Promise<Network> {
  const fail = (problem: string): never => {
    // Hosts only: a URL's path or query may hold an API key.
    const hosts = config.rpcUrls.map((url) => new URL(url).host).join(', ');
    throw new NetworkCheckError(`network "${config.name}" (${hosts}): ${problem}`);
  };
  const answering = await answeringProviders(config, fail, warn);
  const client = createPublicClient({ transport: failoverTransport(answering, { timeoutMs: TIMEOUT_MS }).transport });
  const token = { address: config.usdc as Address, abi: TOKEN_ABI } as const;
  const decimals = await client
    .readContract({ ...token, functionName: 'decimals' })
    .catch(() => fail(`no token answers decimals() at ${config.usdc}`));
  if (decimals !== 6) fail(`the token at ${config.usdc} has ${decimals} decimals; USDC has 6`);
  const [tokenName, tokenVersion] = await Promise.all([
    client.readContract({ ...token, functionName: 'name' }),
    client.readContract({ ...token, functionName: 'version' }),
  ]).catch(() =>
    fail(`the token at ${config.usdc} does not expose name() and version() for EIP-712 signatures (EIP-3009)`),
  );
  return { ...config, tokenName, tokenVersion };
}

/** The URLs of the providers that answer with the configured chain id; fails when none does. */
async function answeringProviders(
  config: NetworkConfig,
  fail: (problem: string) => never,
  warn: (message: string) => void,
): Promise<string[]> {
  const chainIds = await Promise.all(
    config.rpcUrls.map((url) =>
      createPublicClient({ transport: http(url, { timeout: TIMEOUT_MS, retryCount: 1 }) })
        .getChainId()
        .catch((error: Error) => error),
    ),
  );
  const name = (index: number) => providerName(config.rpcUrls, index);
  chainIds.forEach((chainId, index) => {
    if (typeof chainId === 'number' && chainId !== config.chainId)
      fail(`${name(index)} serves chain ${chainId}, but chainId ${config.chainId} is configured`);
  });
  const down = chainIds.flatMap((chainId, index) =>
    chainId instanceof Error ? [`${name(index)} does not answer (${chainId.message.split('\n')[0]})`] : [],
  );
  if (down.length === config.rpcUrls.length) fail(down.join('; '));
  for (const problem of down) warn(`network "${config.name}": ${problem}; starting on its other providers`);
  return config.rpcUrls.filter((_url, index) => typeof chainIds[index] === 'number');
}

/** "RPC 2 (rpc.example.com)" (never the URL, whose path or query may hold an API key), or "the RPC" when alone. */
function providerName(urls: readonly string[], index: number): string {
  return urls.length === 1 ? 'the RPC' : `RPC ${index + 1} (${new URL(urls[index]!).host})`;
}
