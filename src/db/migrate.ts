import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** An arbitrary constant: the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 4_702_311;

/**
 * Applies the frozen SQL files in `migrations/` that have not run yet, each in its own transaction,
 * in file-name order. Safe to call from several processes at once: each transaction takes the migration
 * lock first and applies its file only if no other process did meanwhile. Every lock is a
 * transaction's, never a session's, so this works through a transaction pooler too. Returns the
 * versions applied here. Refuses a database whose recorded migrations do not include the first file
 * (one made by the migrations that the baseline replaced): no file here can bring it up to date.
 */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<string[]> {
  const client = await pool.connect();
  try {
    const files = readdirSync(dir)
      .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
      .sort();
    await inTransaction(client, async () => {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      if (files[0] !== undefined) await refuseIfBeforeBaseline(client, versionOf(files[0]));
    });
    const applied: string[] = [];
    for (const file of files) {
      const version = versionOf(file);
      const ran = await inTransaction(client, async () => {
        const done = await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version]);
        if (done.rowCount) return false;
        await client.query(readFileSync(path.join(dir, file), 'utf8'));
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        return true;
      }).catch((error: unknown) => {
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      });
      if (ran) applied.push(version);
    }
    return applied;
  } finally {
    client.release();
  }
}

function versionOf(file: string): string {
  return file.replace(/\.sql$/, '');
}

/**
 * A database that recorded migrations but not `first` was made by files that are gone: those folded
 * into the baseline. Applying the baseline over it would fail half way on tables that exist.
 */
async function refuseIfBeforeBaseline(client: pg.PoolClient, first: string): Promise<void> {
  const { rows } = await client.query<{ version: string; has_first: boolean }>(
    'SELECT min(version) AS version, bool_or(version = $1) AS has_first FROM schema_migrations',
    [first],
  );
  const oldest = rows[0]?.version;
  if (oldest === null || oldest === undefined || rows[0]!.has_first) return;
  throw new Error(
    `the database was made by migrations that ${first}.sql replaced (its oldest is ${oldest}) and cannot be migrated: ` +
      'recreate it empty (the embedded database: stop the service and delete DATA_DIR/postgres, .data/postgres by default)',
  );
}

/** Runs `work` in a transaction that holds the migration lock (until it commits or rolls back). */
async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}
