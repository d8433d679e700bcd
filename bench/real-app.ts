import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../src/config/config.js';
import type { Services } from '../src/http/services.js';
import { buildApp } from '../src/http/app.js';
import { startDatabase } from '../src/main/database.js';
import { createServices } from '../src/main/services.js';
import type { Permission } from '../src/modules/api-keys/api-key.js';
import { systemClock } from '../src/shared/clock.js';
import { walletAddress, type WorkspaceId } from '../src/shared/ids.js';

export interface RealApp {
  readonly app: FastifyInstance;
  readonly services: Services;
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
 * on a fresh cluster in a temp directory. The job runner is left out: no scenario needs it yet.
 */
export async function startRealApp(env: Readonly<Record<string, string>> = {}): Promise<RealApp> {
  // Under os.tmpdir(): the embedded server drops to the `postgres` user, which must traverse the path.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'invoice-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  const config = loadConfig({
    DATA_DIR: dataDir,
    // Only the portal's origin checks read it; the server process listens on a free port.
    PUBLIC_BASE_URL: 'http://127.0.0.1:3000',
    LOG_LEVEL: 'warn',
    // The config's maximum. The per-key limiter still runs on every request, but never answers 429.
    API_RATE_LIMIT_PER_MINUTE: '10000000',
    // A scenario's own settings, e.g. NEW_WORKSPACE_CREDITS for one that spends credits.
    ...env,
  });
  const database = await startDatabase(config, () => {}).catch((error: unknown) => {
    removeDataDir();
    throw error;
  });
  const stop = async (app?: FastifyInstance) => {
    await app?.close().catch(() => {});
    await database.shutdown().catch(() => {});
    removeDataDir();
  };
  try {
    const services = createServices(config, database.db, systemClock);
    const app = await buildApp(services, { logger: false });
    return { app, services, stop: () => stop(app) };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A workspace with one API key, made through the services as the portal would. */
export async function createBenchWorkspace(services: Services, permissions: readonly Permission[]): Promise<BenchWorkspace> {
  const workspace = await services.workspaces.create(walletAddress(`0x${'be'.repeat(20)}`), { name: 'Bench' });
  const { secret } = await services.apiKeys.create(workspace.id, { name: 'bench', permissions });
  return { workspaceId: workspace.id, authorization: `Bearer ${secret}` };
}
