import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { pipelineOf } from '../../src/db/database.js';
import { Pipeline } from '../../src/db/pipeline.js';
import { createTestDatabase } from '../support/database.js';

const database = await createTestDatabase();
const pipeline = pipelineOf(database.db)!;

const backend = async () => (await pipeline.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', []))[0]!.pid;

it('runs statements written back to back in order, each in its own transaction, each answering its own', async () => {
  await sql`CREATE TABLE pipeline_log (n integer PRIMARY KEY)`.execute(database.db);
  const written = [1, 2, 3, 2, 4].map((n) =>
    pipeline.query<{ n: number }>('INSERT INTO pipeline_log VALUES ($1) RETURNING n', [n]),
  );
  const settled = await Promise.allSettled(written);
  expect(settled.map((result) => (result.status === 'fulfilled' ? result.value[0]!.n : 'refused'))).toEqual([
    1,
    2,
    3,
    'refused',
    4,
  ]);
  // The refused statement took nothing with it: the ones before and after it committed.
  const { rows } = await sql<{ n: number }>`SELECT n FROM pipeline_log ORDER BY n`.execute(database.db);
  expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 4]);
  // bigint arrives as bigint, as from the pool.
  expect((await pipeline.query<{ big: bigint }>('SELECT 9007199254740993::bigint AS big', []))[0]!.big).toBe(
    9007199254740993n,
  );
});

it('connects again on the next statement after its session was ended', async () => {
  const first = await backend();
  await sql`SELECT pg_terminate_backend(${first})`.execute(database.db);
  // The statement that meets the ended session fails; the connection is replaced for the ones after it.
  await expect.poll(async () => backend().catch(() => first), { timeout: 5_000, interval: 50 }).not.toBe(first);
});

it('refuses statements once closed', async () => {
  const own = new Pipeline(database.connection);
  expect((await own.query<{ one: number }>('SELECT 1 AS one', []))[0]!.one).toBe(1);
  await own.close();
  await expect(own.query('SELECT 1', [])).rejects.toThrow(/closed/);
});
