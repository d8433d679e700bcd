import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';

/** Why a read that could go to a replica went to the primary. */
export type PrimaryReason = 'lagging' | 'down' | 'failed';

/** What the routing pool needs of a replica: its pool of connections. */
export interface RoutedReplica {
  readonly pool: pg.Pool;
}

/** What the routing pool asks of the router (ReadReplicas). */
export interface ReadRouter<R extends RoutedReplica> {
  /** The replica the next read goes to, or why it goes to the primary. */
  pick(): R | PrimaryReason;
  /** A read on `replica` failed with the replica's own fault: it is left out until a check answers. */
  failedRead(replica: R, error: unknown): void;
  servedBy(target: R | PrimaryReason): void;
  readonly primary: pg.Pool;
}

/** What Kysely's PostgresDialect takes as its pool: each connection goes where the router says. */
export class RoutingPool<R extends RoutedReplica> implements PostgresPool {
  constructor(private readonly router: ReadRouter<R>) {}

  async connect(): Promise<PostgresPoolClient> {
    // Kysely reads rows and counts only, which pg's results carry as its own type declares them.
    return (await this.routedClient()) as unknown as PostgresPoolClient;
  }

  private async routedClient(): Promise<RoutedClient<R>> {
    const target = this.router.pick();
    if (typeof target !== 'string') {
      try {
        return new RoutedClient(this.router, await target.pool.connect(), target);
      } catch (error) {
        this.router.failedRead(target, error);
        return new RoutedClient(this.router, await this.router.primary.connect(), 'failed');
      }
    }
    return new RoutedClient(this.router, await this.router.primary.connect(), target);
  }

  async end(): Promise<void> {
    // The pools are the primary's (closed with it) and the replicas' (ReadReplicas.stop).
  }
}

/**
 * A connection on a replica or the primary; a read that fails with the replica's own fault goes to the
 * primary. Kysely sends statements as text with parameters (no cursors: `stream()` is not routed).
 */
class RoutedClient<R extends RoutedReplica> {
  private inTransaction = false;
  private client: pg.PoolClient | undefined;

  constructor(
    private readonly router: ReadRouter<R>,
    client: pg.PoolClient,
    private target: R | PrimaryReason,
  ) {
    this.client = client;
  }

  async query(text: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    if (typeof text !== 'string') throw new Error('cursors are not routed to read replicas');
    if (/^\s*(begin|start)/i.test(text)) this.inTransaction = true;
    const target = this.target;
    try {
      const result = await this.client!.query(text, [...parameters]);
      this.router.servedBy(target);
      return result;
    } catch (error) {
      if (typeof target === 'string' || this.inTransaction || !replicaFault(error)) throw error;
      this.router.failedRead(target, error);
      // The replica's connection is destroyed, never returned to its pool, and never released twice.
      const failed = this.client!;
      this.client = undefined;
      failed.release(true);
      this.client = await this.router.primary.connect();
      this.target = 'failed';
      const result = await this.client.query(text, [...parameters]);
      this.router.servedBy('failed');
      return result;
    } finally {
      if (/^\s*(commit|rollback)/i.test(text)) this.inTransaction = false;
    }
  }

  release(error?: Error | boolean): void {
    this.client?.release(error);
    this.client = undefined;
  }
}

/**
 * The errors of a replica itself, which the primary would not give: it went away, refuses new work, did
 * not answer in time, or cancelled the read for a conflict with its replay (40001, 40P01). An error in
 * the statement is the caller's, and is not sent again.
 */
function replicaFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (
    typeof code === 'string' &&
    (/^(08|57P|40001|40P01)/.test(code) || /^E(CONN|PIPE|HOSTUNREACH|TIMEDOUT)/.test(code))
  )
    return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Query read timeout|conflict with recovery|Client has encountered a connection error/i.test(
    message,
  );
}
