import { createPublicClient, defineChain, http, type Chain, type PublicClient, type Transport } from 'viem';
import type { Network } from './networks.js';

export type NetworkClient = PublicClient<Transport, Chain>;

const RPC_TIMEOUT_MS = 10_000;
// Settlement bytes are signed once and resent unchanged, so the fee cap must outlast base-fee rises while
// the transaction waits: twice the base fee survives six full blocks in a row (+12.5% each at most).
// estimateFeesPerGas reads this from the chain: maxFeePerGas = base fee × 2 + priority fee.
const BASE_FEE_MULTIPLIER = 2;

/** One public client per RPC URL, created on first use (viem clients keep HTTP connections alive). */
export function networkClients(): (network: Network) => NetworkClient {
  const clients = new Map<string, NetworkClient>();
  return (network) => {
    let client = clients.get(network.rpcUrl);
    if (!client) {
      client = createPublicClient({
        chain: networkChain(network),
        transport: http(network.rpcUrl, { timeout: RPC_TIMEOUT_MS }),
        // Never serve a cached block number: confirmations and nonces must be read as they are now.
        cacheTime: 0,
      });
      clients.set(network.rpcUrl, client);
    }
    return client;
  };
}

function networkChain(network: Network): Chain {
  return defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [network.rpcUrl] } },
    fees: { baseFeeMultiplier: BASE_FEE_MULTIPLIER },
  });
}
