import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import pg from 'pg';
import { afterAll, expect, inject, it } from 'vitest';
import { migrate, MIGRATIONS_DIR } from '../../src/db/migrate.js';

const { host, port, user } = inject('postgres');
const name = `migrate_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ host, port, user, database: 'postgres' });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const pools = [1, 2, 3].map(() => new pg.Pool({ host, port, user, database: name, max: 1 }));
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  // pool.end() resolves before the sessions have closed; one terminated by DROP ... FORCE while closing
  // would throw its FATAL where nobody listens any more.
  for (let tries = 0; tries < 100; tries += 1) {
    const { rows } = await admin.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1',
      [name],
    );
    if (rows[0]!.n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
});

it('applies each migration once when several processes start on an empty database at the same time', async () => {
  const versions = readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.sql'))
    .map((file) => file.replace(/\.sql$/, ''))
    .sort();
  const applied = await Promise.all(pools.map((pool) => migrate(pool)));
  // Each file is applied in a transaction under the migration lock, by whichever process takes it first:
  // every version once in all, none failed.
  expect(applied.flat().sort()).toEqual(versions);
  const client = await pools[0]!.connect();
  const recorded = await client.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
  client.release();
  expect(recorded.rows.map((row) => row.version)).toEqual(versions);
});
