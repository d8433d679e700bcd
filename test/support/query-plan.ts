import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import type pg from 'pg';
import { expect } from 'vitest';
import type { Database } from '../../src/db/database.js';

/** The plan of the one statement `read` sends, planned with its parameters as the service sends it. */
export async function planOf(pool: pg.Pool, read: (db: Kysely<Database>) => Promise<unknown>): Promise<string> {
  const sent: CompiledQuery[] = [];
  const recording = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => void (event.level === 'query' && sent.push(event.query)),
  });
  await read(recording);
  expect(sent).toHaveLength(1);
  const { rows } = await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sent[0]!.sql}`, [...sent[0]!.parameters]);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}
