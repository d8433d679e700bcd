import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { loadConfig, type Role } from '../src/config/config.js';
import type { JobLogger } from '../src/jobs/index.js';
import { createWorkers, scheduleRecurringJobs } from '../src/main/jobs.js';
import { ProcessRegistry } from '../src/modules/service-processes/index.js';
import type { Services } from '../src/main/services.js';
import { buildApp } from '../src/main/app.js';
import { startDatabase } from '../src/main/database.js';
import { createServices, type ChainDeps } from '../src/main/services.js';
import type { Permission } from '../src/modules/api-keys/api-key.js';
import { systemClock } from '../src/shared/clock.js';
import { walletAddress, type WorkspaceId } from '../src/shared/ids.js';

/** The services as `npm start` builds them, on their own fresh embedded cluster; no HTTP app. */
export interface RealServices {
  readonly services: Services;
  /** Where the pool connects (the embedded server's socket): the job runner's LISTEN connection goes there too. */
  readonly connection: pg.PoolConfig;
  /** This process among the service processes, when it serves HTTP (not started). */
  readonly registry?: ProcessRegistry;
  /** Stops PostgreSQL and deletes its data directory. Never throws. */
  stop(): Promise<void>;
}

export interface RealApp extends RealServices {
  readonly app: FastifyInstance;
  /** Stops the workers and the app, stops PostgreSQL and deletes its data directory. Never throws. */
  stop(): Promise<void>;
}

export interface BenchWorkspace {
  readonly workspaceId: WorkspaceId;
  /** `Bearer <secret>`, ready for the Authorization header. */
  readonly authorization: string;
}

/**
 * The real app as `npm start` runs it with ROLE=all (services, hooks, embedded PostgreSQL with its default
 * settings), on a fresh cluster in a temp directory: counted among the HTTP processes, hearing order
 * changes, with the job runners and the recurring jobs running and the relayer watched. Nothing is
 * prepared for it that the product does not do itself.
 */
export async function startRealApp(
  env: Readonly<Record<string, string>> = {},
  chain?: ChainDeps,
  /** A data directory to start from and keep (created if missing); unset, a fresh one that `stop` deletes. */
  keptDataDir?: string,
): Promise<RealApp> {
  const real = await startRealServices(env, chain, 'all', keptDataDir);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    await real.stop();
  };
  try {
    const { services, connection, registry } = real;
    const app = await buildApp(services, { logger: false });
    stops.push(() => app.close());
    await registry!.start((error) => benchLogger.warn({ err: error }, 'service process heartbeat failed'));
    stops.push(() => registry!.stop());
    // Payment links answer their 402 from copies kept while order changes are heard.
    const orderChanges = services.payments.orderChanges.listen(connection, benchLogger);
    stops.push(() => orderChanges.stop());
    await orderChanges.start();
    services.relayer.watch.start(benchLogger);
    stops.push(async () => services.relayer.watch.stop());
    const workers = createWorkers(services, connection, benchLogger);
    stops.push(() => workers.stop());
    await workers.start();
    await scheduleRecurringJobs(services);
    return { ...real, app, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Warnings and errors of background work (a lost lease, a failed claim) would explain odd numbers: on stderr. */
export function stderrJobLogger(source: string): JobLogger {
  const write = (fields: object, message: string) =>
    console.error(`${source}: ${message} ${JSON.stringify(fields, bigintSafe)}`);
  return { info() {}, warn: write, error: write };
}

const benchLogger = stderrJobLogger('bench app');

function bigintSafe(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  return value instanceof Error ? value.message : value;
}

/**
 * The services of the real app (createServices on a fresh embedded cluster with the migrations applied),
 * without the HTTP layer: what the webhook bench's workers run on. Without `chain`, every chain call
 * fails; only the purchase part pays anything.
 */
export async function startRealServices(
  env: Readonly<Record<string, string>> = {},
  chain?: ChainDeps,
  /** An HTTP role makes the services count this process among the HTTP processes (`registry`). */
  role?: Role,
  keptDataDir?: string,
): Promise<RealServices> {
  // Under os.tmpdir(): the embedded server drops to the `postgres` user, which must traverse the path.
  const dataDir = keptDataDir ?? mkdtempSync(path.join(os.tmpdir(), 'invoice-bench-'));
  if (keptDataDir) mkdirSync(keptDataDir, { recursive: true, mode: 0o755 });
  const removeDataDir = () => {
    if (!keptDataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const config = loadConfig({
    DATA_DIR: dataDir,
    // Only the portal's origin checks read it; the server process listens on a free port.
    PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    LOG_LEVEL: 'warn',
    // The config's maximum. The per-key and per-IP limiters still run on every request, but never answer 429.
    API_RATE_LIMIT_PER_MINUTE: '10000000',
    CHECKOUT_RATE_LIMIT_PER_MINUTE: '10000000',
    // Every load connection comes from loopback, up to BENCH_CONNECTIONS (256) of them.
    MAX_CONNECTIONS_PER_IP: '100000',
    // A scenario's own settings, e.g. NEW_WORKSPACE_CREDITS for one that spends credits.
    ...env,
  });
  const database = await startDatabase(config, () => {}).catch((error: unknown) => {
    removeDataDir();
    throw error;
  });
  const stop = async () => {
    await database.shutdown().catch(() => {});
    removeDataDir();
  };
  try {
    const registry = role && new ProcessRegistry({ db: database.db, role });
    return {
      services: createServices(config, database.db, systemClock, chain, undefined, registry),
      connection: database.directConnection,
      ...(registry && { registry }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A workspace with one API key, made through the services as the portal would. */
export async function createBenchWorkspace(
  services: Services,
  permissions: readonly Permission[],
  /** The owner; a database kept between runs needs a new one each run (a wallet owns at most 20 workspaces). */
  wallet = walletAddress(`0x${'be'.repeat(20)}`),
): Promise<BenchWorkspace> {
  const workspace = await services.workspaces.create(wallet, { name: 'Bench' }, undefined);
  const { secret } = await services.apiKeys.create(workspace.id, { name: 'bench', permissions });
  return { workspaceId: workspace.id, authorization: `Bearer ${secret}` };
}

/** Creates run this many at a time: group commit takes them together, as under merchant load. */
const CREATES_AT_ONCE = 200;

/** `count` real invoices of 12.50 through the service, each with its own Idempotency-Key. */
export async function createInvoices(services: Services, workspaceId: WorkspaceId, count: number): Promise<void> {
  for (let made = 0; made < count; made += CREATES_AT_ONCE) {
    await Promise.all(
      Array.from({ length: Math.min(CREATES_AT_ONCE, count - made) }, (_, index) =>
        services.invoices.create(
          workspaceId,
          { amount: '12.50', externalId: `order-${made + index}` },
          { idempotencyKey: `bench-invoice-${made + index}`, source: 'api' },
        ),
      ),
    );
  }
}
