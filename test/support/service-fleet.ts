import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/main/app.js';
import { createServices } from '../../src/main/services.js';
import { systemClock } from '../../src/shared/clock.js';
import { BASE_URL } from './app.js';
import { createControlledChain, type ControlledChain } from './controlled-chain.js';
import { createTestDatabase } from './database.js';
import { freePort, startService, type ServiceProcess } from './service-process.js';

/**
 * For the fault tests: real service processes (`npm start`) on one database and a controlled chain,
 * started and killed at will, and an in-process app on the same database for the merchant's side (only
 * the service processes run jobs). Every process still running is stopped after the file's tests.
 */
export async function serviceFleet(options: { confirmations: number; env?: Record<string, string> }): Promise<{
  chain: ControlledChain;
  database: Awaited<ReturnType<typeof createTestDatabase>>;
  admin: Awaited<ReturnType<typeof buildApp>>;
  /**
   * Starts one more service process, with `env` added (e.g. its ROLE): on PUBLIC_BASE_URL's port when no
   * running process has it.
   */
  start(env?: Record<string, string>): Promise<ServiceProcess>;
  /** kill -9, then lets the dead process's job leases lapse at once rather than after 30 s. */
  kill9(service: ServiceProcess): Promise<void>;
}> {
  const chain = await createControlledChain({ confirmations: options.confirmations, blockTimeSeconds: 1 });
  const database = await createTestDatabase();
  const port = await freePort();
  const env = {
    DATABASE_URL: database.url,
    PUBLIC_BASE_URL: `http://localhost:${port}`,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'service-fleet-')),
    NETWORKS: JSON.stringify([chain.networkConfig]),
    RELAYER_PRIVATE_KEY: chain.relayerPrivateKey,
    ...options.env,
  };
  const running = new Set<ServiceProcess>();
  afterAll(async () => {
    await Promise.all([...running].map((service) => service.stop()));
  });
  const admin = await buildApp(
    createServices(loadConfig({ PUBLIC_BASE_URL: BASE_URL, ...options.env }), database.db, systemClock),
    { logger: false },
  );
  afterAll(() => admin.close());
  // The process serving PUBLIC_BASE_URL's port ('starting' while it starts); the others take their own.
  let onPort: ServiceProcess | 'starting' | undefined;
  return {
    chain,
    database,
    admin,
    async start(extra = {}) {
      const free = onPort === undefined;
      if (free) onPort = 'starting';
      const service = await startService({ ...env, ...extra, ...(free && { PORT: String(port) }) });
      if (free) onPort = service;
      running.add(service);
      return service;
    },
    async kill9(service) {
      await service.kill9();
      running.delete(service);
      if (onPort === service) onPort = undefined;
      await sql`UPDATE jobs SET locked_until = now() WHERE locked_until > now()`.execute(database.db);
    },
  };
}

/** Polls `probe` every 10 ms until it answers something truthy; fails naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
