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
 * in file-name order. Safe to call from several processes at once. Returns the versions applied.
 */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR, options: MigrateOptions = {}): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version),
    );
    const files = readdirSync(dir)
      .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
      .sort();
    const applied: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      const sql = readFileSync(path.join(dir, file), 'utf8');
      await client.query('BEGIN');
      try {
        await client.query("SELECT set_config('invoice_service.public_base_url', $1, true)", [
          options.publicBaseUrl?.origin ?? '',
        ]);
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(error as Error).message}`);
      }
      applied.push(version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}
