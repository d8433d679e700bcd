import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';

/**
 * Every event is written by the SQL function append_event and every Idempotency-Key is claimed by
 * claim_idempotency_keys, invoice creation's group commit included: a rule written twice drifts.
 * Read from the migrated database (the functions as they are now, whatever migration defined them)
 * and from the application's source.
 */
const database = await createTestDatabase();

async function functionsWhoseBody(pattern: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND p.prosrc ~* ${pattern} ORDER BY 1`.execute(database.db);
  return rows.map((row) => row.name);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

it('inserts events only in append_event and idempotency keys only in claim_idempotency_keys', async () => {
  expect(await functionsWhoseBody('insert\\s+into\\s+events\\M')).toEqual(['append_event']);
  expect(await functionsWhoseBody('insert\\s+into\\s+idempotency_keys\\M')).toEqual(['claim_idempotency_keys']);
  expect(await functionsWhoseBody('update\\s+idempotency_keys\\M')).toEqual(['store_idempotent_responses']);
  const writers = sourceFiles('src').filter((file) =>
    /insertInto\(\s*'(events|idempotency_keys)'|insert\s+into\s+(events|idempotency_keys)\b/i.test(
      readFileSync(file, 'utf8'),
    ),
  );
  expect(writers).toEqual([]);
});

it('builds no JSON by joining text in any SQL function', async () => {
  // A JSON object's opening brace and first key written as a string literal, to be joined with values.
  expect(await functionsWhoseBody(`'\\{\\s*"`)).toEqual([]);
});
