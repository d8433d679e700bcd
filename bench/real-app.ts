import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { loadConfig } from '../src/config/config.js';
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
  /** Stops PostgreSQL and deletes its data directory. Never throws. */
  stop(): Promise<void>;
}

export interface RealApp extends RealServices {
  readonly app: FastifyInstance;
  /** Closes the app, stops PostgreSQL and deletes its data directory. Never throws. */
  stop(): Promise<void>;
}

export interface BenchWorkspace {
  readonly workspaceId: WorkspaceId;
  /** `Bearer <secret>`, ready for the Authorization header. */
  readonly authorization: string;
}

/**
 * The real app as `npm start` wires it (services, hooks, embedded PostgreSQL with its default settings),
 * on a fresh cluster in a temp directory, with the listener for order changes. The job runner is left
 * out: no HTTP scenario needs it.
 */
export async function startRealApp(env: Readonly<Record<string, string>> = {}, chain?: ChainDeps): Promise<RealApp> {
  const real = await startRealServices(env, chain);
  try {
    const app = await buildApp(real.services, { logger: false });
    // As `npm start` does: payment links answer their 402 from copies kept while order changes are heard.
    const orderChanges = real.services.payments.listenForOrderChanges(real.connection, {
      warn: (_fields, message) => console.error(`bench app: ${message}`),
    });
    await orderChanges.start();
    return {
      ...real,
      app,
      stop: async () => {
        await app.close().catch(() => {});
        await orderChanges.stop();
        await real.stop();
      },
    };
  } catch (error) {
    await real.stop();
    throw error;
  }
}

/**
 * The services of the real app (createServices on a fresh embedded cluster with the migrations applied),
 * without the HTTP layer: what the webhook bench's workers run on. Without `chain`, every chain call
 * fails; only the purchase part pays anything.
 */
export async function startRealServices(
  env: Readonly<Record<string, string>> = {},
  chain?: ChainDeps,
): Promise<RealServices> {
  // Under os.tmpdir(): the embedded server drops to the `postgres` user, which must traverse the path.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'invoice-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
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
    return {
      services: createServices(config, database.db, systemClock, chain),
      connection: database.directConnection,
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
): Promise<BenchWorkspace> {
  const workspace = await services.workspaces.create(
    walletAddress(`0x${'be'.repeat(20)}`),
    { name: 'Bench' },
    undefined,
  );
  const { secret } = await services.apiKeys.create(workspace.id, { name: 'bench', permissions });
  return { workspaceId: workspace.id, authorization: `Bearer ${secret}` };
}
