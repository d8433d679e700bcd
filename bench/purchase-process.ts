import type { AddressInfo } from 'node:net';
import { BASE_SEPOLIA_USDC } from '../src/chain/local-chain.js';
import { checkNetworks } from '../src/chain/networks.js';
import { createViemChain } from '../src/chain/viem-chain.js';
import { LOCAL_CHAIN_ID, LOCAL_NETWORK_NAME, type NetworkConfig } from '../src/config/config.js';
import { createBenchWorkspace, startRealApp, type RealApp } from './real-app.js';
import type { PurchaseProcessOptions, PurchaseProcessReady } from './purchase-protocol.js';

/**
 * Entry of the purchase bench's service process (forked by bench/purchases.ts): once the runner has sent
 * its options, the real app on a fresh embedded PostgreSQL, wired as `npm start` wires it for a
 * configured network (NETWORKS with the runner's anvil, RELAYER_PRIVATE_KEY, OPERATOR_WALLET): the
 * checked network, the viem chain, the app listening on 127.0.0.1 with its workers and recurring jobs
 * (`startRealApp`). It stops (workers, app, PostgreSQL, temp data) when the runner says so or goes away.
 */
async function main(): Promise<void> {
  let real: RealApp | undefined = undefined;
  let exitCode: number | undefined;
  let preparing = false;
  let stopping = false;
  // As in bench/server.ts: stopping during preparation only takes note, and stops once it is ready.
  // Before the options came nothing has started, and there is nothing to clean up.
  const stop = async (code: number) => {
    exitCode ??= code;
    if (stopping) return;
    if (!real) {
      if (!preparing) process.exit(exitCode);
      return;
    }
    stopping = true;
    await real.stop();
    process.exit(exitCode);
  };
  process.on('message', (message) => message === 'stop' && void stop(0));
  process.once('disconnect', () => void stop(1));
  process.once('SIGINT', () => void stop(1));
  process.once('SIGTERM', () => void stop(1));
  process.on('uncaughtException', (error) => {
    console.error(`bench purchase process: ${error.message}`);
    void stop(1);
  });

  const options = await new Promise<PurchaseProcessOptions>((resolve) =>
    process.on('message', (message: PurchaseProcessOptions | 'stop') => {
      if (message !== 'stop' && message.type === 'options') resolve(message);
    }),
  );
  for (const url of [options.rpcUrl, options.webhookUrl].filter((value) => value !== undefined)) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' || parsed.hostname !== '127.0.0.1')
      throw new Error(`refusing to use ${parsed.href}: loopback only`);
  }

  preparing = true;
  const network: NetworkConfig = {
    name: LOCAL_NETWORK_NAME,
    chainId: LOCAL_CHAIN_ID,
    rpcUrls: [options.rpcUrl],
    usdc: BASE_SEPOLIA_USDC,
    confirmations: options.confirmations,
    blockTimeSeconds: options.blockSeconds,
  };
  const networks = await checkNetworks([network]);
  real = await startRealApp(
    {
      NETWORKS: JSON.stringify([network]),
      RELAYER_PRIVATE_KEY: options.relayerPrivateKey,
      OPERATOR_WALLET: options.operatorWallet,
      ...(options.webhookUrl && { WEBHOOK_ALLOW_PRIVATE: 'true' }),
      ...(options.newWorkspaceCredits && { NEW_WORKSPACE_CREDITS: String(options.newWorkspaceCredits) }),
    },
    { networks, chain: createViemChain({ relayerPrivateKey: options.relayerPrivateKey }) },
  );
  if (exitCode !== undefined) return stop(exitCode);
  try {
    process.send?.(await serve(real, options.webhookUrl));
  } catch (error) {
    console.error(`bench purchase process: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return stop(1);
  }
}

/** Listens and makes the workspace; the workers and the recurring jobs run already (`startRealApp`). */
async function serve(real: RealApp, webhookUrl: string | undefined): Promise<PurchaseProcessReady> {
  const { app, services, connection } = real;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { workspaceId, authorization } = await createBenchWorkspace(services, [
    'billing:read',
    'billing:write',
    'invoices:create',
    'invoices:read',
  ]);
  if (webhookUrl) await services.webhookEndpoint.configure(workspaceId, { endpoint: webhookUrl, enabled: true });
  return {
    type: 'ready',
    origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    workspaceId,
    authorization,
    connection: { host: connection.host, port: connection.port, user: connection.user, database: connection.database },
  };
}

main().catch((error: unknown) => {
  console.error(
    `bench purchase process failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
