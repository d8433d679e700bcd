import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** An arbitrary constant: the advisory lock that serialises migrations across processes. */
const MIGRATION_LOCK = 4_702_311;

export interface MigrateOptions {
  /**
   * PUBLIC_BASE_URL, for migrations that store links (0010 rewrites old invoice events into the API's
   * shape). Each migration's transaction sees its origin as the setting `invoice_service.public_base_url`.
   */
  readonly publicBaseUrl?: URL;
}

/**
 * Applies the frozen SQL files in `migrations/` that have not run yet, each in its own transaction,
 * in file-name order. Safe to call from several processes at once: each transaction takes the migration
 * lock first and applies its file only if no other process did meanwhile. Every lock is a
 * transaction's, never a session's, so this works through a transaction pooler too. Returns the
 * versions applied here.
 */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR, options: MigrateOptions = {}): Promise<string[]> {
  const client = await pool.connect();
  try {
    await inTransaction(client, async () => {
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
    });
    const files = readdirSync(dir)
      .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
      .sort();
    const applied: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      const ran = await inTransaction(client, async () => {
        const done = await client.query('SELECT 1 FROM schema_migrations WHERE version = $1', [version]);
        if (done.rowCount) return false;
        await client.query("SELECT set_config('invoice_service.public_base_url', $1, true)", [
          options.publicBaseUrl?.origin ?? '',
        ]);
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
