import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import pg from 'pg';
import { Pipeline } from './pipeline.js';
import { PipelinedTransactions } from './pipelined-transactions.js';
import { openPool } from './pool.js';

/**
 * Every table, by name. Empty here: the toolkit knows no module. Each module (and the job queue) adds
 * its own tables from its `*.table.ts` by declaration merging, so a repository is typed against the
 * whole schema while this folder imports nothing of theirs.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by declaration merging
export interface Database {}

export type Db = Kysely<Database>;
/** What repositories and services take: the database, or the transaction of the use case. */
export type Executor = Kysely<Database> | Transaction<Database>;

const INT8_OID = 20;

/** PostgreSQL `bigint` arrives as a JS `bigint`: money and counters never pass through a float. */
export const DB_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => BigInt(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export interface DatabaseHandle {
  readonly pool: pg.Pool;
  readonly db: Db;
  close(): Promise<void>;
}

/** The pipelined connection opened beside each pool, found from the pool's Kysely instance. */
const pipelines = new WeakMap<Db, Pipeline>();
/** The pipelined transactions of each pool, found the same way. */
const pipelinedTransactions = new WeakMap<Db, PipelinedTransactions>();
/** Connections for pipelined transactions beside each pool (they connect on first use). */
const PIPELINED_TRANSACTION_CONNECTIONS = 2;

export function openDatabase(connection: pg.PoolConfig, poolSize = 8): DatabaseHandle {
  const pool = openPool({ ...connection, max: poolSize, types: DB_TYPES });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  // It connects only when a use case first sends on it.
  const pipeline = new Pipeline({ ...connection, types: DB_TYPES });
  pipelines.set(db, pipeline);
  const transactions = new PipelinedTransactions({ ...connection, types: DB_TYPES }, PIPELINED_TRANSACTION_CONNECTIONS);
  pipelinedTransactions.set(db, transactions);
  return {
    pool,
    db,
    close: () => Promise.all([pipeline.close(), transactions.close(), db.destroy()]).then(() => {}),
  };
}

/** The pipeline of the database `db` was opened on (openDatabase); none for a Kysely made elsewhere. */
export function pipelineOf(db: Db): Pipeline | undefined {
  return pipelines.get(db);
}

/**
 * `body` in one transaction on the pipelined connections of the database `db` was opened on
 * (openDatabase; its parts may send statements at once), or in a plain transaction of `db` for a Kysely
 * made elsewhere.
 */
export function pipelinedTransaction<T>(db: Db, body: (trx: Executor) => Promise<T>): Promise<T> {
  const pipelined = pipelinedTransactions.get(db);
  return pipelined ? pipelined.run(body) : db.transaction().execute(body);
}

/**
 * `read` in one read-only REPEATABLE READ transaction: its queries see the database as one moment left
 * it. For an answer made of several reads of rows that are written together (an intent and the purchase
 * it pays, a delivery and its attempts), so that it never pairs a row before a write with one after it.
 */
export function inOneSnapshot<T>(db: Db, read: (trx: Executor) => Promise<T>): Promise<T> {
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
}
