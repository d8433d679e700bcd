import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import type { Database, Executor } from './database.js';
import { openPool } from './pool.js';

/**
 * Transactions on connections in the protocol's pipeline mode: statements that the use case sends at
 * once (parts of it that do not wait for each other, e.g. the payments of one block) go out together
 * and the server runs them back to back, one round trip a wave instead of one a statement. On 2 shared
 * cores a round trip is ~0.7 ms of waking processes; twenty payments of three statements each took
 * 45–80 ms one after another.
 *
 * Its connections are a pool of their own, opened on first use: a pipelined connection stays pipelined.
 * Once the use case has settled, its executor refuses every statement, so a part still running after
 * another failed can never write outside the transaction (after its ROLLBACK).
 */
export class PipelinedTransactions {
  private readonly pool: pg.Pool;

  constructor(connection: pg.PoolConfig, size: number) {
    this.pool = openPool({ ...connection, max: size, pipeline: true } as pg.PoolConfig);
  }

  /** `work` in one transaction; its executor may be used by several parts at once. */
  async run<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    const session = new Session(client);
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(session.executor).finally(() => session.end());
      await client.query('COMMIT');
      return result;
    } catch (error) {
      broken = await client.query('ROLLBACK').then(
        () => undefined,
        (failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure))),
      );
      throw error;
    } finally {
      // A connection that could not roll back is closed, not handed to the next transaction.
      client.release(broken);
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** One transaction's connection as Kysely sees it: every query on the same client, until it ends. */
class Session {
  private open = true;
  readonly executor: Executor;

  constructor(client: pg.PoolClient) {
    const session = {
      query: (sql: string, parameters: readonly unknown[]) =>
        this.open
          ? client.query(sql, parameters as unknown[])
          : Promise.reject(new Error('the pipelined transaction has ended; this statement was not sent')),
      // The client goes back to the pool when the transaction ends, not after each statement.
      release: () => {},
    } as unknown as PostgresPoolClient;
    const pool: PostgresPool = { connect: () => Promise.resolve(session), end: () => Promise.resolve() };
    this.executor = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }

  end(): void {
    this.open = false;
  }
}

/**
 * Waits for every part of a use case sent at once, then answers their results in order or fails with
 * the first failure: the transaction ends only once no part can send anything more.
 */
export async function allOrFirstFailure<T>(parts: readonly Promise<T>[]): Promise<T[]> {
  const outcomes = await Promise.allSettled(parts);
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
