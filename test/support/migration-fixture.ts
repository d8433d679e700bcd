import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';

/**
 * An empty database of its own and a folder holding the migrations before `migration`: migrating with
 * that folder gives a database as deployed before the migration, on which a test writes old rows and
 * then runs the real migrations. Both are removed after the file's tests.
 */
export async function databaseBeforeMigration(migration: string): Promise<{ pool: pg.Pool; before: string }> {
  const { host, port, user } = inject('postgres');
  const name = `before_${migration}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ host, port, user, database: 'postgres' });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const pool = new pg.Pool({ host, port, user, database: name, max: 1 });
  // Dropping the database at the end may terminate a connection the pool is still closing.
  pool.on('error', () => {});
  const before = mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  for (const file of readdirSync(MIGRATIONS_DIR).filter((file) => file < migration))
    copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(before, file));
  afterAll(async () => {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(before, { recursive: true, force: true });
  });
  return { pool, before };
}
