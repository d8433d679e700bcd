import { createPublicClient, http, parseAbi, type Address } from 'viem';
import type { NetworkConfig } from '../config/config.js';

/** A configured network, checked against its RPC, with the token's EIP-712 domain read from the chain. */
export interface Network extends NetworkConfig {
  /** EIP-712 domain name and version of the USDC contract (signed by payers, sent as x402 `extra`). */
  readonly tokenName: string;
  readonly tokenVersion: string;
}

export class NetworkCheckError extends Error {
  override name = 'NetworkCheckError';
}

const TOKEN_ABI = parseAbi([
  'function decimals() view returns (uint8)',
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

/**
 * Checks every network before the service accepts payments on it: the RPC answers with the configured
 * chain id, and the USDC address holds a 6-decimal token with an EIP-712 name and version.
 * Throws NetworkCheckError naming the network and what is wrong.
 */
export async function checkNetworks(configs: readonly NetworkConfig[]): Promise<Network[]> {
  return Promise.all(configs.map(checkNetwork));
}

async function checkNetwork(config: NetworkConfig): Promise<Network> {
  const fail = (problem: string): never => {
    throw new NetworkCheckError(`network "${config.name}" (${config.rpcUrl}): ${problem}`);
  };
  const client = createPublicClient({ transport: http(config.rpcUrl, { timeout: 10_000, retryCount: 1 }) });
  const chainId = await client
    .getChainId()
    .catch((error: Error) => fail(`the RPC does not answer (${error.message.split('\n')[0]})`));
  if (chainId !== config.chainId) fail(`the RPC serves chain ${chainId}, but chainId ${config.chainId} is configured`);
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
