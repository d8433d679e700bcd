import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { privateKeyToAccount } from 'viem/accounts';
import { checkNetworks, type Network } from '../chain/networks.js';
import { createRpcClients, type RpcClients } from '../chain/rpc-clients.js';
import { OperatorLog } from '../shared/operator-log.js';
import { createViemChain } from '../chain/viem-chain.js';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import type { ChannelListener } from '../db/listener.js';
import { buildApp, buildOpsApp } from './app.js';
import { ProcessRegistry } from '../modules/service-processes/index.js';
import { systemClock } from '../shared/clock.js';
import { formatUsdc } from '../shared/money.js';
import { startDatabase } from './database.js';
import { DemoSecrets, type DemoAccess } from './demo.js';
import { createWorkers, scheduleRecurringJobs, type Workers } from './jobs.js';
import { startLocalNetwork, type LocalNetwork } from './local-network.js';
import { logStream } from './log-stream.js';
import { unsupportedNode } from './runtime.js';
import { createServices, type ChainDeps } from './services.js';

/** From SIGTERM to exit, at most; what is still running then is cut. */
const EXIT_DEADLINE_MS = 30_000;
/**
 * How long requests in flight may run on after SIGTERM. Job handlers get 10 s, then 2 s after an abort
 * (src/jobs/runner.ts), at the same time; the database then has the rest of the deadline to close.
 */
const HTTP_DRAIN_MS = 20_000;

/**
 * `npm start`: by ROLE, the HTTP app (`api`), the job runners (`worker`) or both (`all`, the default),
 * on the embedded PostgreSQL unless DATABASE_URL is set, and on a local anvil chain unless NETWORKS is
 * set. Prints where the portal is and, in the local demo, a working API key and curl lines.
 */
async function main(): Promise<void> {
  const started = performance.now();
  const tooOld = unsupportedNode();
  if (tooOld) {
    process.stderr.write(`${tooOld}\n`);
    process.exit(1);
  }
  const loaded = loadConfig();
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const stops: (() => Promise<void>)[] = [];
  let stopping = false;
  const shutdown = async (reason: string, code: number) => {
    if (stopping) return;
    stopping = true;
    say(`\n${reason}: shutting down…`);
    setTimeout(() => process.exit(1), EXIT_DEADLINE_MS).unref();
    for (const stop of stops.reverse()) await stop().catch(() => {});
    process.exit(code);
  };
  process.once('SIGINT', () => void shutdown('SIGINT', 0));
  process.once('SIGTERM', () => void shutdown('SIGTERM', 0));

  try {
    say(
      loaded.databaseUrl
        ? 'connecting to PostgreSQL (DATABASE_URL)…'
        : `starting the embedded PostgreSQL in ${loaded.dataDir} …`,
    );
    const database = await startDatabase(loaded, () => {});
    stops.push(() => database.shutdown());
    for (const line of database.moved) say(line);
    if (database.appliedMigrations.length > 0)
      say(`applied ${database.appliedMigrations.length} database migration(s)`);

    const demo = loaded.networks ? undefined : DemoSecrets.load(loaded.dataDir);
    // The local demo sells credits too, to a demo operator account of its own unless OPERATOR_WALLET is set.
    const config: Config =
      demo && !loaded.operatorWallet ? Object.freeze({ ...loaded, operatorWallet: demo.operator }) : loaded;

    const relayerKeys =
      config.relayerPrivateKeys.length > 0 ? config.relayerPrivateKeys : demo ? [demo.relayerPrivateKey] : [];
    if (relayerKeys.length === 0)
      throw new ConfigError(
        'RELAYER_PRIVATE_KEY',
        'is required with NETWORKS (or several in RELAYER_PRIVATE_KEYS): it pays the gas of settling gasless payments',
      );
    let local: LocalNetwork | undefined;
    if (demo) {
      say('starting the local chain (anvil, chain 84532, test USDC) …');
      local = await startLocalNetwork(config.dataDir, {
        buyer: demo.buyer,
        relayers: relayerKeys.map((key) => privateKeyToAccount(key).address),
      });
      stops.push(() => local!.stop());
    }
    const networks = await checkNetworks(config.networks ?? [local!.network], say);

    const demoWallet =
      demo && local
        ? { chainId: local.network.chainId, rpcUrl: local.network.rpcUrls[0]!, ...demo.browserAccounts() }
        : undefined;
    // Processes that serve HTTP count each other in the database: each allows its share of the API key
    // and checkout rate limits. A worker serves neither and stays out of the count.
    // Shared by the chain and /metrics and /readyz, which show what each provider does.
    // The operator's log is the process's logger once it exists: a provider can fail during the start checks.
    const operatorLog = new OperatorLog();
    const rpc = createRpcClients({
      onSkip: (network, { provider, host, until, reason }) =>
        operatorLog.warn(
          { network, provider, host, reason },
          `RPC provider ${provider} of ${network} (${host}) did not answer (${reason}); skipped until ${until.toISOString()}, the others answer`,
        ),
    });
    const registry = config.role === 'worker' ? undefined : new ProcessRegistry({ db: database.db, role: config.role });
    const services = createServices(
      config,
      database.db,
      systemClock,
      { networks, ...relayerChains(relayerKeys, rpc), rpc },
      demoWallet,
      registry,
    );
    // A worker serves no merchant, buyer or owner: only what its orchestrator and monitoring ask.
    const stream = logStream(config.logFormat);
    const logging = { logger: { level: config.logLevel, ...(stream && { stream }) } };
    const app = config.role === 'worker' ? await buildOpsApp(services, logging) : await buildApp(services, logging);
    // In the local demo (no NETWORKS) that is the default, and the start banner says so instead.
    if (config.webhookAllowPrivate && config.networks) {
      app.log.warn(
        'WEBHOOK_ALLOW_PRIVATE=true: webhooks may be sent over http to private and loopback addresses. For development only; never in production.',
      );
    }
    const workers = config.role === 'api' ? undefined : createWorkers(services, database.directConnection, app.log);
    // Payment links answer their 402 from copies of order states while this hears every change of them.
    const orderChanges =
      config.role === 'worker' ? undefined : services.payments.orderChanges.listen(database.directConnection, app.log);
    services.log.use(app.log);
    operatorLog.use(app.log);
    // The relayer's funds are read once a minute and a change between low and funded is logged once.
    services.relayer.sender.useLogger(app.log);
    services.relayer.watch.start(app.log);
    stops.push(async () => services.relayer.watch.stop());
    stops.push(() => stopWork(app, workers, registry, orderChanges));
    void orderChanges?.start();

    // Counted before the first request, so this process never allows more than its share.
    await registry?.start((error) =>
      app.log.warn({ err: error }, 'service process heartbeat failed; the rate limits keep the last process count'),
    );
    const address = await app.listen({ port: config.port, host: config.host });
    if (workers) {
      await workers.start();
      await scheduleRecurringJobs(services);
    }
    // The local demo runs only as ROLE=all (src/config/config.ts), so it always has the portal.
    const access = demo ? await demo.ensureWorkspace(services) : undefined;
    say(
      banner(
        config,
        address,
        networks,
        Math.round(performance.now() - started),
        demo && local && access ? { demo, local, access, walletServed: services.demoWallet !== undefined } : undefined,
      ),
    );
  } catch (error) {
    console.error(describe(error));
    await shutdown('start failed', 1);
  }
}

/** The chain, signing as the first relayer account, and a port for each account, all on the same clients. */
function relayerChains(keys: readonly `0x${string}`[], rpc: RpcClients): Pick<ChainDeps, 'chain' | 'signers'> {
  const signers = keys.map((relayerPrivateKey) => createViemChain({ relayerPrivateKey, rpc }));
  return { chain: signers[0]!, signers };
}

/**
 * On SIGTERM: no new connections, requests in flight finish (those still running after HTTP_DRAIN_MS are
 * cut), and at the same time the job runners let running jobs finish or hand them to other workers. The
 * process leaves the count of HTTP processes at once: it takes no new requests, so the others take its
 * share of the rate limits.
 */
async function stopWork(
  app: FastifyInstance,
  workers: Workers | undefined,
  registry: ProcessRegistry | undefined,
  orderChanges: ChannelListener | undefined,
): Promise<void> {
  const cut = setTimeout(() => app.server.closeAllConnections(), HTTP_DRAIN_MS);
  await Promise.all([
    app.close().finally(() => clearTimeout(cut)),
    workers?.stop(),
    // Left behind if the database is gone: the others ignore it after LIVE_SECONDS.
    registry?.stop().catch(() => {}),
    orderChanges?.stop(),
  ]);
}

interface DemoInfo {
  readonly demo: DemoSecrets;
  readonly local: LocalNetwork;
  readonly access: DemoAccess;
  /** False when HOST is not a loopback address: the demo wallet is then not offered (createServices). */
  readonly walletServed: boolean;
}

const ROLE_LINES: Readonly<Record<Config['role'], string>> = {
  all: 'all (HTTP and jobs)',
  api: 'api (HTTP only; jobs run in ROLE=worker processes on the same database)',
  worker: 'worker (jobs; on its port only /healthz, /readyz and /metrics)',
};

function banner(
  config: Config,
  address: string,
  networks: readonly Network[],
  startupMs: number,
  demo: DemoInfo | undefined,
): string {
  const base = config.publicBaseUrl.origin;
  const lines = [
    '',
    `Invoice Service is running (ready in ${startupMs} ms)`,
    `  Role:           ${ROLE_LINES[config.role]}`,
    ...(config.role === 'worker'
      ? [`  Health:         ${address}/readyz`, `  Links to:       ${base} (PUBLIC_BASE_URL, where the API is)`]
      : [`  Portal:         ${base}/portal`, `  API reference:  ${base}/docs`, `  Health:         ${base}/readyz`]),
    ...(!config.webhookAllowPrivate
      ? []
      : config.networks
        ? [
            '  WARNING:        WEBHOOK_ALLOW_PRIVATE=true: webhooks may go to private and loopback addresses (development only)',
          ]
        : [
            '  Webhooks:       receivers on this machine may use http://localhost (local demo; WEBHOOK_ALLOW_PRIVATE=false refuses them)',
          ]),
    `  Networks:       ${networks.map((network) => `${network.name} (chain ${network.chainId}, ${network.tokenName} v${network.tokenVersion} at ${network.usdc})`).join('; ')}`,
  ];
  if (demo) {
    const { access, local } = demo;
    lines.push(
      '',
      'Local demo',
      `  Chain RPC:      ${local.network.rpcUrls[0]} (a block every ${local.network.blockTimeSeconds} s; kept in DATA_DIR/chain)`,
      `  Demo buyer:     ${demo.demo.buyer} holds ${formatUsdc(local.buyerUsdc)} test USDC (its key is in DATA_DIR/demo.json)`,
      `  Operator:       ${config.operatorWallet ?? 'none'} receives credit purchases${config.operatorWallet === demo.demo.operator ? ' (the demo operator; its key is in DATA_DIR/demo.json)' : ''}`,
      `  Workspace:      ${access.workspaceId}`,
      `  Wallet:         ${access.wallet}`,
      ...(demo.walletServed
        ? []
        : [
            `  Demo wallet:    off: HOST=${config.host} is not a loopback address, and the demo wallet signs for anyone who reaches it`,
          ]),
    );
    if (access.apiKey) {
      lines.push(
        `  Demo API key:   ${access.apiKey}`,
        '',
        ...(demo.walletServed
          ? [
              `In the browser: open ${base}/portal and sign in with "Demo wallet: merchant"; create an invoice,`,
              'open its checkout link and pay with "Demo wallet: buyer" (both are built into this local demo).',
              '',
            ]
          : []),
        'Try it — your credits, then a 12.50 USDC invoice:',
        `  curl -s -H "Authorization: Bearer ${access.apiKey}" ${base}/w/${access.workspaceId}/v1/billing`,
        `  curl -s -X POST -H "Authorization: Bearer ${access.apiKey}" -H "Content-Type: application/json" \\`,
        `    -H "Idempotency-Key: demo-$(date +%s)" -d '{"amount":"12.50"}' ${base}/w/${access.workspaceId}/v1/invoices`,
        '',
        'Pay it as the demo buyer with an unmodified x402 client (the invoice\'s "url" field), then read it back:',
        '  npm run pay -- <url>',
        `  curl -s -H "Authorization: Bearer ${access.apiKey}" ${base}/w/${access.workspaceId}/v1/invoices/<id>/receipt`,
      );
    } else {
      lines.push(`  Demo API key:   not available (${access.note ?? 'unknown reason'})`);
    }
  }
  lines.push('', 'Press Ctrl+C to stop.', '');
  return lines.join('\n');
}

function describe(error: unknown): string {
  if (error instanceof ConfigError) return `configuration error: ${error.message}`;
  return `start failed: ${error instanceof Error ? error.message : String(error)}`;
}

main().catch((error: unknown) => {
  console.error(describe(error));
  process.exit(1);
});
