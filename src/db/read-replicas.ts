import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { DB_TYPES, type Database, type Db } from './database.js';

/** How often the primary's WAL position and each replica's replayed position are read. */
export const REPLICA_CHECK_MS = 250;
/** A check that takes longer than this counts as a failure: the replica is down until one answers. */
const CHECK_TIMEOUT_MS = 1_000;
/** A new connection to a replica that takes longer than this fails, and the read goes to the primary. */
const CONNECT_TIMEOUT_MS = 2_000;
/** Primary positions remembered to date a replica's position: 40 × 250 ms, 10 s of history. */
const SAMPLES = 40;

export interface ReplicaStatus {
  /** host:port/database, never the URL (its password). */
  readonly replica: string;
  /** Its last check answered, as a standby, within the last few checks. */
  readonly up: boolean;
  /** At most this far behind the primary at its last check, in ms; undefined while down. */
  readonly lagMs: number | undefined;
  /** Up and within DATABASE_READ_MAX_LAG_MS: it takes reads. */
  readonly serving: boolean;
  /** Statements it served. */
  readonly reads: number;
}

/** Why a read that could go to a replica went to the primary. */
export type PrimaryReason = 'lagging' | 'down' | 'failed';

export interface ReplicaEvents {
  /** A replica stopped or resumed serving reads, with why in words. */
  changed(replica: string, serving: boolean, why: string): void;
}

interface Replica {
  readonly label: string;
  readonly pool: pg.Pool;
  /** When its last check answered (ms since the epoch); 0: never. */
  checkedAt: number;
  lagMs: number | undefined;
  /** Until a check answers again after a read on it failed. */
  failed: boolean;
  serving: boolean;
  reads: number;
}

/**
 * Reads that may lag the primary by a bounded time, on streaming replicas (DATABASE_READ_URL).
 *
 * `db` is a Kysely whose every statement goes to a replica that is up and at most `maxLagMs` behind,
 * taken in turn, and to the primary when none is. A statement that fails on a replica because the
 * replica went away is sent again to the primary at once (reads only: a statement inside a transaction
 * is not sent again), and the replica is left out until a check answers again.
 *
 * Lag is measured in the primary's terms, with no clock shared between servers: every check reads the
 * primary's WAL position, and a replica that has replayed the position read at time t holds every
 * commit made before t. Physical replication replays commits in the primary's order, so a replica
 * always shows a state the primary was in: never a later commit without an earlier one.
 */
export class ReadReplicas {
  readonly db: Db;
  private readonly replicas: Replica[];
  /** One connection per replica for the checks, so that reads filling its pool never delay them. */
  private readonly checkPools: pg.Pool[];
  private readonly samples: { at: number; lsn: bigint }[] = [];
  private readonly primaryReads: Record<PrimaryReason, number> = { lagging: 0, down: 0, failed: 0 };
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private events: ReplicaEvents | undefined;

  constructor(
    private readonly primary: pg.Pool,
    urls: readonly string[],
    private readonly maxLagMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.replicas = urls.map((url) => {
      const pool = new pg.Pool({
        connectionString: url,
        max: 8,
        types: DB_TYPES,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      });
      // A replica that goes away errs its idle connections; the pool drops them and the checks notice.
      pool.on('error', () => {});
      return { label: labelOf(url), pool, checkedAt: 0, lagMs: undefined, failed: false, serving: false, reads: 0 };
    });
    this.checkPools = urls.map((url) => {
      const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CHECK_TIMEOUT_MS });
      pool.on('error', () => {});
      return pool;
    });
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new RoutingPool(this) }) });
  }

  /** Checks at once, then every REPLICA_CHECK_MS until stop. */
  async start(events?: ReplicaEvents): Promise<void> {
    this.events = events;
    await this.check();
    this.timer = setInterval(() => {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
    }, REPLICA_CHECK_MS);
    this.timer.unref();
  }

  /** Where the log lines go, once the process has a logger. */
  useEvents(events: ReplicaEvents): void {
    this.events = events;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
    const pools = [...this.replicas.map((replica) => replica.pool), ...this.checkPools];
    await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  }

  status(): ReplicaStatus[] {
    return this.replicas.map((replica) => ({
      replica: replica.label,
      up: this.isUp(replica),
      lagMs: this.isUp(replica) ? replica.lagMs : undefined,
      serving: this.usable(replica),
      reads: replica.reads,
    }));
  }

  /** Routed statements the primary served, by why no replica did. */
  primaryStatus(): Readonly<Record<PrimaryReason, number>> {
    return { ...this.primaryReads };
  }

  /** Reads the primary's position, then each replica's; a replica's serving changes are told once each. */
  async check(): Promise<void> {
    const at = this.now();
    try {
      const { rows } = await withTimeout(
        this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn'),
      );
      this.samples.push({ at, lsn: parseLsn(rows[0]!.lsn) });
      if (this.samples.length > SAMPLES) this.samples.shift();
    } catch {
      // Without the primary's position no lag can be dated; the replicas keep their last.
    }
    await Promise.all(this.replicas.map((replica, index) => this.checkReplica(replica, this.checkPools[index]!)));
  }

  private async checkReplica(replica: Replica, pool: pg.Pool): Promise<void> {
    let why: string;
    try {
      const { rows } = await withTimeout(
        pool.query<{ standby: boolean; replayed: string | null }>(
          'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
        ),
      );
      const { standby, replayed } = rows[0]!;
      if (!standby || replayed === null) {
        replica.failed = true;
        why = 'it is not a streaming replica (pg_is_in_recovery() is false)';
      } else {
        replica.checkedAt = this.now();
        replica.failed = false;
        replica.lagMs = this.lagOf(parseLsn(replayed));
        why =
          replica.lagMs > this.maxLagMs
            ? `it is ${replica.lagMs} ms behind the primary (DATABASE_READ_MAX_LAG_MS=${this.maxLagMs})`
            : 'it is up and within DATABASE_READ_MAX_LAG_MS';
      }
    } catch (error) {
      replica.failed = true;
      why = `it does not answer (${describe(error)})`;
    }
    const serving = this.usable(replica);
    if (serving !== replica.serving) {
      replica.serving = serving;
      this.events?.changed(replica.label, serving, why);
    }
  }

  /**
   * How far behind a replica at `replayed` is: 0 when it has the primary's latest position, else the
   * time since the newest position it has; past the remembered history, that history's length.
   */
  private lagOf(replayed: bigint): number {
    const now = this.now();
    const latest = this.samples.at(-1);
    if (!latest || replayed >= latest.lsn) return 0;
    for (let index = this.samples.length - 2; index >= 0; index--) {
      const sample = this.samples[index]!;
      if (replayed >= sample.lsn) return now - this.samples[index + 1]!.at;
    }
    return now - this.samples[0]!.at + REPLICA_CHECK_MS;
  }

  private isUp(replica: Replica): boolean {
    return !replica.failed && this.now() - replica.checkedAt <= 4 * REPLICA_CHECK_MS;
  }

  private usable(replica: Replica): boolean {
    return this.isUp(replica) && replica.lagMs !== undefined && replica.lagMs <= this.maxLagMs;
  }

  /** The next usable replica in turn, or why there is none. */
  pick(): Replica | PrimaryReason {
    let reason: PrimaryReason = 'down';
    for (let tried = 0; tried < this.replicas.length; tried++) {
      const replica = this.replicas[(this.next + tried) % this.replicas.length]!;
      if (this.usable(replica)) {
        this.next = (this.next + tried + 1) % this.replicas.length;
        return replica;
      }
      if (this.isUp(replica)) reason = 'lagging';
    }
    return reason;
  }

  /** A replica failed a read: left out until its next check answers, and said at once. */
  failedRead(replica: Replica, error: unknown): void {
    replica.failed = true;
    this.primaryReads.failed++;
    if (replica.serving) {
      replica.serving = false;
      this.events?.changed(replica.label, false, `a read on it failed (${describe(error)})`);
    }
  }

  servedBy(target: Replica | PrimaryReason): void {
    if (typeof target === 'string') this.primaryReads[target]++;
    else target.reads++;
  }

  primaryPool(): pg.Pool {
    return this.primary;
  }
}

/** What Kysely's PostgresDialect takes as its pool: each connection goes where ReadReplicas.pick says. */
class RoutingPool implements PostgresPool {
  constructor(private readonly router: ReadReplicas) {}

  async connect(): Promise<PostgresPoolClient> {
    // Kysely reads rows and counts only, which pg's results carry as its own type declares them.
    return (await this.routedClient()) as unknown as PostgresPoolClient;
  }

  private async routedClient(): Promise<RoutedClient> {
    const target = this.router.pick();
    if (typeof target !== 'string') {
      try {
        return new RoutedClient(this.router, await target.pool.connect(), target);
      } catch (error) {
        this.router.failedRead(target, error);
        return new RoutedClient(this.router, await this.router.primaryPool().connect(), 'failed');
      }
    }
    return new RoutedClient(this.router, await this.router.primaryPool().connect(), target);
  }

  async end(): Promise<void> {
    // The pools are the primary's (closed with it) and the replicas' (ReadReplicas.stop).
  }
}

/**
 * A connection on a replica or the primary; a read that fails with the replica's connection goes to the
 * primary. Kysely sends statements as text with parameters (no cursors: `stream()` is not routed).
 */
class RoutedClient {
  private inTransaction = false;

  constructor(
    private readonly router: ReadReplicas,
    private client: pg.PoolClient,
    private target: ReturnType<ReadReplicas['pick']> | 'failed',
  ) {}

  async query(text: string, parameters: readonly unknown[]): Promise<pg.QueryResult> {
    if (typeof text !== 'string') throw new Error('cursors are not routed to read replicas');
    if (/^\s*(begin|start)/i.test(text)) this.inTransaction = true;
    const target = this.target;
    try {
      const result = await this.client.query(text, [...parameters]);
      this.router.servedBy(target === 'failed' ? 'failed' : target);
      return result;
    } catch (error) {
      if (typeof target === 'string' || this.inTransaction || !replicaFailure(error)) throw error;
      this.router.failedRead(target, error);
      this.client.release(true);
      this.client = await this.router.primaryPool().connect();
      this.target = 'failed';
      return await this.client.query(text, [...parameters]);
    } finally {
      if (/^\s*(commit|rollback)/i.test(text)) this.inTransaction = false;
    }
  }

  release(error?: Error | boolean): void {
    this.client.release(error);
  }
}

/**
 * The errors of a replica that went away or refuses new work, or that cancelled the read for a conflict
 * with its replay (40001), as opposed to an error in the statement, which the primary would give too.
 */
function replicaFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && (/^(08|57P|40001)/.test(code) || /^E(CONN|PIPE|HOSTUNREACH|TIMEDOUT)/.test(code)))
    return true;
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/** `16/B374D848` as a number: the position in the WAL, comparable between servers of one cluster. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

function labelOf(url: string): string {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host') ?? parsed.hostname;
  return `${host}:${parsed.port || '5432'}${parsed.pathname}`;
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.slice(0, 200);
}

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const routers = new WeakMap<Db, ReadReplicas>();

/** Makes `replicas` the place reads of the primary's `db` may go (see readsOf). */
export function useReadReplicas(db: Db, replicas: ReadReplicas): void {
  routers.set(db, replicas);
}

/** The replicas of the primary's `db`, when DATABASE_READ_URL set any. */
export function readReplicasOf(db: Db): ReadReplicas | undefined {
  return routers.get(db);
}
