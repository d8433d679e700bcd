import { BASE_SEPOLIA_USDC } from '../../src/chain/local-chain.js';
import type { Network } from '../../src/chain/networks.js';
import { LOCAL_CHAIN_ID, LOCAL_NETWORK_NAME } from '../../src/config/config.js';
import { NO_CHAIN } from '../../src/main/services.js';
import { createBenchWorkspace, startRealApp } from '../real-app.js';
import type { Scenario } from '../scenario.js';
import { x402ExpressReference } from './x402-express-reference.js';

/**
 * Base Sepolia as a configured network, taken as checked: a 402 reads no chain, so the RPC (which does not
 * exist here) is never called, and the token's EIP-712 domain is USDC's.
 */
const NETWORK: Network = {
  name: LOCAL_NETWORK_NAME,
  chainId: LOCAL_CHAIN_ID,
  rpcUrls: ['http://127.0.0.1:9/unused'],
  usdc: BASE_SEPOLIA_USDC,
  confirmations: 1,
  tokenName: 'USDC',
  tokenVersion: '2',
};

/** An open invoice's `url` asked without a payment header: the 402 every x402 client reads first. */
export const x402Challenge: Scenario = {
  name: 'GET /w/:ws/x402/:invoiceId (402)',
  measures:
    'real app on the embedded PostgreSQL: an open invoice of 0.01 USDC asked without a payment, answered 402 with PAYMENT-REQUIRED and the v1 body',
  ceiling: x402ExpressReference,
  async prepare() {
    const { chain } = NO_CHAIN;
    const real = await startRealApp({ NETWORKS: JSON.stringify([NETWORK]) }, { networks: [NETWORK], chain });
    try {
      const { workspaceId } = await createBenchWorkspace(real.services, []);
      const { invoice } = await real.services.invoices.create(
        workspaceId,
        { amount: '0.01' },
        { idempotencyKey: 'bench-402-invoice', source: 'api' },
      );
      return {
        app: real.app,
        stop: real.stop,
        request: { method: 'GET', path: `/w/${workspaceId}/x402/${invoice.id}`, headers: {}, expectedStatus: 402 },
      };
    } catch (error) {
      await real.stop();
      throw error;
    }
  },
};
