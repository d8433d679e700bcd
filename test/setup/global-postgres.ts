import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { migrate } from '../../src/db/migrate.js';

export const TEMPLATE_DATABASE = 'invoice_template';

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: { host: string; port: number; user: string; template: string };
  }
}

interface SharedServer {
  readonly ready: Promise<{ admin: pg.PoolConfig; stop: () => Promise<void> }>;
  users: number;
}

// Each tier that needs PostgreSQL (db, chain, browser) runs this setup; a run of several tiers shares one
// server. Vitest loads the file once per project, so the server is kept where every copy sees it.
const SHARED = Symbol.for('invoice-service.test-postgres');
type WithShared = typeof globalThis & { [SHARED]?: SharedServer };

/**
 * One real PostgreSQL for the whole run (or the server in TEST_DATABASE_URL), with a migrated template
 * database that each test file clones (test/support/database.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const global = globalThis as WithShared;
  const shared = (global[SHARED] ??= { ready: startServer(), users: 0 });
  shared.users += 1;
  const { admin } = await shared.ready;
  const params = new pg.Client({ ...admin, database: 'postgres' });
  project.provide('postgres', {
    host: params.host,
    port: params.port,
    user: params.user ?? 'postgres',
    template: TEMPLATE_DATABASE,
  });
  return async () => {
    shared.users -= 1;
    if (shared.users > 0) return;
    delete global[SHARED];
    await (await shared.ready).stop();
  };
}

async function startServer(): Promise<{ admin: pg.PoolConfig; stop: () => Promise<void> }> {
  const external = process.env.TEST_DATABASE_URL;
  let stop = async () => {};
  let admin: pg.PoolConfig;
  if (external) {
    admin = { connectionString: external };
  } else {
    // Not under the project: the server's unprivileged user must be able to traverse the path.
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'invoice-test-'));
    const server = await startEmbeddedPostgres({
      dataDir,
      database: 'postgres',
      // A throwaway cluster: durability buys nothing here and costs time.
      settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off', max_connections: '400' },
    });
    admin = server.connection;
    stop = async () => {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const client = new pg.Client({ ...admin, database: 'postgres' });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE}`);
  await client.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  await client.end();
  const pool = new pg.Pool({ ...admin, database: TEMPLATE_DATABASE, max: 1 });
  await migrate(pool);
  await pool.end();
  return { admin, stop };
}
