import { sql } from 'kysely';
import pg from 'pg';
import { expect, it } from 'vitest';
import { pipelinedTransaction, type Executor } from '../../src/db/database.js';
import { createTestDatabase } from '../support/database.js';

// An `error` event nobody listens to is thrown out of the socket's handler: the run would report it as
// an unhandled error and fail, so each test below fails without the listener openPool gives.
const database = await createTestDatabase();

const backendOf = async (trx: Executor) =>
  (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx)).rows[0]!.pid;

/** Ends `pid`'s session from a connection of its own, and waits until it is gone. */
async function endSession(pid: number): Promise<void> {
  const admin = new pg.Client(database.connection);
  await admin.connect();
  try {
    await admin.query('SELECT pg_terminate_backend($1)', [pid]);
    await expect
      .poll(async () => (await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount)
      .toBe(0);
  } finally {
    await admin.end();
  }
}

/** A use case whose session is ended between two of its statements. */
async function endedMidway(trx: Executor): Promise<void> {
  await endSession(await backendOf(trx));
  // The client has seen its socket close by the time the next statement goes.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await sql`SELECT 1`.execute(trx);
}

it('survives the session of a connection in use being ended, and serves the next use case', async () => {
  await expect(database.db.transaction().execute(endedMidway)).rejects.toThrow();

  expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db)).rows[0]!.one).toBe(1);
});

it('survives it on a pipelined transaction too', async () => {
  await expect(pipelinedTransaction(database.db, endedMidway)).rejects.toThrow();

  const pid = await pipelinedTransaction(database.db, backendOf);
  expect(pid).toBeGreaterThan(0);
});
