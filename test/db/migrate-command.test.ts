import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { databaseUrl } from '../support/database.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { host, port, user } = inject('postgres');
const name = `migrate_${randomBytes(4).toString('hex')}`;
const old = `${name}_old`;
const admin = new pg.Client({ host, port, user, database: 'postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
await admin.query(`CREATE DATABASE ${old}`);
afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`DROP DATABASE IF EXISTS ${old} WITH (FORCE)`);
  await admin.end();
});

function migrate(database = name) {
  const url = databaseUrl({ host, port, user }, database);
  return spawnSync(process.execPath, ['--import', 'tsx', 'src/main/migrate.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
}

it('npm run migrate applies the frozen SQL files to an empty database once', { timeout: 60_000 }, async () => {
  const files = readdirSync(MIGRATIONS_DIR).filter((file) => file.endsWith('.sql'));
  const first = migrate();
  expect(first.status).toBe(0);
  expect(first.stdout).toContain(`applied ${files.length} migration(s)`);
  const second = migrate();
  expect(second.status).toBe(0);
  expect(second.stdout).toContain('database schema is up to date');

  const client = new pg.Client({ host, port, user, database: name });
  await client.connect();
  const versions = (
    await client.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version')
  ).rows.map((row) => row.version);
  await client.end();
  expect(versions).toEqual(files.map((file) => file.replace(/\.sql$/, '')).sort());
});

it('exits non-zero with a clear message when the database is unreachable', () => {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main/migrate.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: 'postgresql://nobody@127.0.0.1:9/none' },
    encoding: 'utf8',
  });
  expect(result.status).toBe(1);
  expect(result.stderr).toMatch(/^migrate failed: /);
});

it('refuses a database made by the migrations the baseline replaced, saying how to recreate it', async () => {
  const client = new pg.Client({ host, port, user, database: old });
  await client.connect();
  try {
    // What those migrations left: their versions recorded, their tables there.
    await client.query(
      'CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    await client.query(
      "INSERT INTO schema_migrations (version) VALUES ('0001_foundation'), ('0035_authorizations_bound_to_orders')",
    );
    await client.query('CREATE TABLE workspaces (id text PRIMARY KEY)');

    const result = migrate(old);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      'migrate failed: the database was made by migrations that 0001_baseline.sql replaced (its oldest is 0001_foundation) ' +
        'and cannot be migrated: recreate it empty (the embedded database: stop the service and delete DATA_DIR/postgres',
    );
    const tables = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename NOT IN ('schema_migrations', 'workspaces')",
    );
    expect(tables.rows[0]!.n).toBe(0);
  } finally {
    await client.end();
  }
});
