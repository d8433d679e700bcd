import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';

export interface TestDatabase extends DatabaseHandle {
  readonly name: string;
  readonly connection: pg.PoolConfig;
  /** The same database as DATABASE_URL, for a service process started by the test. */
  readonly url: string;
}

/** A DATABASE_URL for a database on the embedded server's unix socket (`host` is the socket directory). */
export function databaseUrl(connection: { host?: string; port?: number; user?: string }, name: string): string {
  return `postgresql://${connection.user}@localhost:${connection.port}/${name}?host=${encodeURIComponent(String(connection.host))}`;
}

/** A fresh database cloned from the migrated template; dropped after the file's tests. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const provided = inject('postgres');
  // Only the tiers that need PostgreSQL start it (test/setup/test-tiers.ts decides a file's tier).
  if (!provided) throw new Error('no PostgreSQL in this run: this test file is not in the db, chain or browser tier');
  const { host, port, user, template } = provided;
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ host, port, user, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  await admin.end();
  const connection: pg.PoolConfig = { host, port, user, database: name };
  const handle = openDatabase(connection);
  afterAll(async () => {
    await handle.close();
    const cleanup = new pg.Client({ host, port, user, database: 'postgres' });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await cleanup.end();
  });
  return { ...handle, name, connection, url: databaseUrl(connection, name) };
}

/**
 * A new, empty database on the same server migrated only up to (not including) the migration numbered
 * `upTo` (e.g. '0012'), to test that migration on a database as deployed ones had it; dropped after the
 * file's tests. Resolves a one-connection pool on it.
 */
export async function databaseBeforeMigration(connection: pg.PoolConfig, upTo: string): Promise<pg.Pool> {
  const name = `upgrade_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ ...connection, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ ...connection, database: name, max: 1 });
  const before = mkdtempSync(path.join(os.tmpdir(), `migrations-before-${upTo}-`));
  afterAll(async () => {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(before, { recursive: true, force: true });
  });
  for (const file of readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql') && file < upTo))
    cpSync(path.join(MIGRATIONS_DIR, file), path.join(before, file));
  await migrate(pool, before);
  return pool;
}
