import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';

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
