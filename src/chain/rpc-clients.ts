import { createPublicClient, defineChain, type Chain, type PublicClient, type Transport } from 'viem';
import type { Network } from './networks.js';
import {
  failoverTransport,
  type FailoverOptions,
  type FailoverTransport,
  type ProviderSkip,
  type RpcProviderStatus,
} from './rpc-failover.js';

export type NetworkClient = PublicClient<Transport, Chain>;

/** A network's providers as /metrics and /readyz show them. */
export interface NetworkProviders {
  readonly network: string;
  readonly providers: readonly RpcProviderStatus[];
}

/** The public clients of every network, and what their providers do. */
export interface RpcClients {
  client(network: Network): NetworkClient;
  /** Every network a client was made for, with its providers' calls, errors, heads and skips. */
  status(): NetworkProviders[];
}

const RPC_TIMEOUT_MS = 10_000;
// Settlement bytes are signed once and resent unchanged, so the fee cap must outlast base-fee rises while
// the transaction waits: twice the base fee survives six full blocks in a row (+12.5% each at most).
// estimateFeesPerGas reads this from the chain: maxFeePerGas = base fee × 2 + priority fee.
const BASE_FEE_MULTIPLIER = 2;

/**
 * One public client per network, created on first use, over all of the network's providers
 * (src/chain/rpc-failover.ts). viem clients keep HTTP connections alive.
 */
export function createRpcClients(
  options: Pick<FailoverOptions, 'now' | 'headProbeMs'> & {
    /** Told when a network's provider starts being skipped. */
    onSkip?: (network: string, skip: ProviderSkip) => void;
  } = {},
): RpcClients {
  const { onSkip, ...failoverOptions } = options;
  // By name and providers: the same name with other providers (a test's dead node) is another client.
  const clients = new Map<string, { network: string; client: NetworkClient; failover: FailoverTransport }>();
  return {
    client(network) {
      const key = [network.name, ...network.rpcUrls].join(' ');
      let entry = clients.get(key);
      if (!entry) {
        const failover = failoverTransport(network.rpcUrls, {
          timeoutMs: RPC_TIMEOUT_MS,
          ...failoverOptions,
          ...(onSkip && { onSkip: (skip: ProviderSkip) => onSkip(network.name, skip) }),
        });
        const client = createPublicClient({
          chain: networkChain(network),
          transport: failover.transport,
          // Never serve a cached block number: confirmations and nonces must be read as they are now.
          cacheTime: 0,
        });
        entry = { network: network.name, client, failover };
        clients.set(key, entry);
      }
      return entry.client;
    },
    status: () => [...clients.values()].map(({ network, failover }) => ({ network, providers: failover.status() })),
  };
}

function networkChain(network: Network): Chain {
  return defineChain({
    id: network.chainId,
    name: network.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [...network.rpcUrls] } },
    fees: { baseFeeMultiplier: BASE_FEE_MULTIPLIER },
  });
}
