import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { pipelinedTransaction, type Executor } from '../../src/db/database.js';
import { PipelinedTransactions } from '../../src/db/pipelined-transactions.js';
import { createTestDatabase } from '../support/database.js';
import { deferred } from '../support/deferred.js';

const database = await createTestDatabase();
/** The transactions of the database's own pipelined connections. */
const transactions = { run: <T>(work: (trx: Executor) => Promise<T>) => pipelinedTransaction(database.db, work) };
await sql`CREATE TABLE pipelined_log (n integer PRIMARY KEY, tx text NOT NULL)`.execute(database.db);

const insert = async (trx: Executor, n: number) =>
  (
    await sql<{
      n: number;
    }>`INSERT INTO pipelined_log VALUES (${n}, txid_current()::text) RETURNING n`.execute(trx)
  ).rows[0]!.n;

const committed = async () =>
  (await sql<{ n: number; tx: string }>`SELECT n, tx FROM pipelined_log ORDER BY n`.execute(database.db)).rows;

it('runs parts sent at once in one transaction, each answering its own statements', async () => {
  const answers = await transactions.run((trx) =>
    Promise.all([1, 2, 3].map(async (n) => [await insert(trx, n), await insert(trx, n * 10)])),
  );

  expect(answers).toEqual([
    [1, 10],
    [2, 20],
    [3, 30],
  ]);
  const rows = await committed();
  expect(rows.map((row) => row.n)).toEqual([1, 2, 3, 10, 20, 30]);
  expect(new Set(rows.map((row) => row.tx)).size).toBe(1);
  // bigint arrives as bigint, as from the pool.
  const big = await transactions.run(
    async (trx) => (await sql<{ big: bigint }>`SELECT 9007199254740993::bigint AS big`.execute(trx)).rows[0]!.big,
  );
  expect(big).toBe(9007199254740993n);
});

it('rolls every part back when one fails, and fails with its error', async () => {
  const before = await committed();
  await expect(
    transactions.run((trx) =>
      Promise.all([
        insert(trx, 100),
        // Already there: the statement fails, the transaction is aborted.
        insert(trx, 1),
        insert(trx, 101),
      ]),
    ),
  ).rejects.toThrow(/duplicate key/);

  expect(await committed()).toEqual(before);
  // The connection is usable again by the next transaction.
  await transactions.run((trx) => insert(trx, 102));
  expect((await committed()).map((row) => row.n)).toContain(102);
});

it('never sends a statement of a part still running once the transaction ended', async () => {
  const { promise: hold, release } = deferred();
  let late: Promise<number> | undefined;
  await expect(
    transactions.run((trx) => {
      late = hold.then(() => insert(trx, 200));
      return Promise.reject(new Error('the use case failed first'));
    }),
  ).rejects.toThrow('the use case failed first');

  release();
  await expect(late).rejects.toThrow(/ended/);
  // Not written outside the transaction either.
  expect((await committed()).map((row) => row.n)).not.toContain(200);
});

it('replaces a connection whose session was ended', async () => {
  const backend = () =>
    transactions.run(
      async (trx) => (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)).rows[0]!.pid,
    );
  const first = await backend();
  await sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()`.execute(
    database.db,
  );
  await expect.poll(async () => backend().catch(() => first), { timeout: 5_000, interval: 50 }).not.toBe(first);
});

it('closes', async () => {
  const own = new PipelinedTransactions(database.connection, 1);
  expect(await own.run(async (trx) => (await sql<{ one: number }>`SELECT 1 AS one`.execute(trx)).rows[0]!.one)).toBe(1);
  await own.close();
  await expect(own.run(async () => 1)).rejects.toThrow();
});
