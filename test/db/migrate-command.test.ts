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
const admin = new pg.Client({ host, port, user, database: 'postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
afterAll(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
});

function migrate() {
  const url = databaseUrl({ host, port, user }, name);
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
