import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { DB_TYPES, type Database, type Db } from './database.js';
import { RoutingPool, type PrimaryReason, type ReadRouter } from './routed-pool.js';
import { openPool } from './pool.js';

export type { PrimaryReason } from './routed-pool.js';

/** How often the primary's WAL position and each replica's replayed position are read. */
const REPLICA_CHECK_MS = 250;
/** A check that takes longer than this counts as a failure: the replica is down until one answers. */
const CHECK_TIMEOUT_MS = 1_000;
/** A new connection to a replica that takes longer than this fails, and the read goes to the primary. */
const CONNECT_TIMEOUT_MS = 2_000;
/**
 * A read on a replica that has not answered in this long is taken from it and sent to the primary: a
 * replica that went silent (a network cut, a frozen host) must not hold a request until TCP gives up.
 */
const READ_TIMEOUT_MS = 30_000;

export interface ReplicaStatus {
  /** host:port/database, never the URL (its password). */
  readonly replica: string;
  /** Its last check answered, as a standby of the primary, within the last few checks. */
  readonly up: boolean;
  /** At most this far behind the primary at its last check, in ms; undefined while down. */
  readonly lagMs: number | undefined;
  /** Up and within DATABASE_READ_MAX_LAG_MS: it takes reads. */
  readonly serving: boolean;
  /** Statements it served. */
  readonly reads: number;
}

export interface ReplicaEvents {
  /** A replica stopped or resumed serving reads, with why in words. */
  changed(replica: string, serving: boolean, why: string): void;
}

interface Replica {
  readonly label: string;
  readonly pool: pg.Pool;
  /** One connection for the checks, so that reads filling its pool never delay them. */
  readonly checks: pg.Pool;
  /** When its last check answered (ms since the epoch); 0: never. */
  checkedAt: number;
  lagMs: number;
  /** Until a check answers again after a read on it failed. */
  failed: boolean;
  /** Undefined until it is known to be a standby of the primary's cluster and database; else why not. */
  foreign: string | undefined;
  identified: boolean;
  serving: boolean;
  reads: number;
}

/** Which cluster and database a server is: a replica must be the primary's, or its positions mean nothing. */
interface Identity {
  readonly database: string;
  /** pg_control_system()'s; undefined where the role may not read it. */
  readonly system: string | undefined;
}

/**
 * Reads that may lag the primary by a bounded time, on streaming replicas (DATABASE_READ_URL).
 *
 * `db` is a Kysely whose every statement goes to a replica that is up and at most `maxLagMs` behind,
 * taken in turn, and to the primary when none is. A statement that fails on a replica by the replica's
 * own fault (routed-pool.ts) is sent again to the primary at once (a statement inside a transaction is
 * not), and the replica is left out until a check answers again.
 *
 * Lag is measured in the primary's terms, with no clock shared between servers: every check reads the
 * primary's WAL position (on a connection of its own, so a busy pool never delays it), and a replica that
 * has replayed the position read at time t holds every commit made before t: its lag is at most now − t
 * for the newest such t. Physical replication replays commits in the primary's order, so a replica
 * always shows a state the primary was in: never a later commit without an earlier one.
 */
export class ReadReplicas implements ReadRouter<Replica> {
  readonly db: Db;
  readonly primary: pg.Pool;
  private readonly replicas: Replica[];
  private readonly primaryChecks: pg.Pool;
  private primaryIdentity: Identity | undefined;
  /** The primary's positions, oldest first: enough to date any lag up to the bound, and two more. */
  private readonly samples: { at: number; lsn: bigint }[] = [];
  private readonly maxSamples: number;
  private readonly primaryReads: Record<PrimaryReason, number> = { lagging: 0, down: 0, failed: 0 };
  private next = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;
  private events: ReplicaEvents | undefined;

  constructor(
    primary: { readonly pool: pg.Pool; readonly connection: pg.PoolConfig },
    urls: readonly string[],
    private readonly maxLagMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.primary = primary.pool;
    this.primaryChecks = checkPool(primary.connection);
    this.maxSamples = Math.ceil(maxLagMs / REPLICA_CHECK_MS) + 2;
    this.replicas = urls.map((url) => {
      const pool = openPool({
        connectionString: url,
        max: 8,
        types: DB_TYPES,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        query_timeout: READ_TIMEOUT_MS,
        keepAlive: true,
      });
      // A replica that goes away breaks its connections; the pool drops them and the checks notice.
      return {
        label: labelOf(url),
        pool,
        checks: checkPool({ connectionString: url }),
        checkedAt: 0,
        lagMs: Number.POSITIVE_INFINITY,
        failed: false,
        foreign: undefined,
        identified: false,
        serving: false,
        reads: 0,
      };
    });
    this.db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new RoutingPool(this) }) });
  }

  /** Checks at once, then every REPLICA_CHECK_MS until stop. */
  async start(): Promise<void> {
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
    const pools = [this.primaryChecks, ...this.replicas.flatMap((replica) => [replica.pool, replica.checks])];
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
      this.primaryIdentity ??= await identify(this.primaryChecks);
      // The insert position, not the write position: a commit is visible before its WAL is written
      // (synchronous_commit = off), and the replica has it only once it has replayed past it.
      const { rows } = await timed(this.primaryChecks, 'SELECT pg_current_wal_insert_lsn()::text AS lsn');
      this.samples.push({ at, lsn: parseLsn(rows[0]!.lsn as string) });
      if (this.samples.length > this.maxSamples) this.samples.shift();
    } catch {
      // Without the primary's position the last one ages: a replica's lag grows with it until one is read.
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
  }

  private async checkReplica(replica: Replica): Promise<void> {
    let why: string;
    try {
      if (!replica.identified && this.primaryIdentity) {
        replica.foreign = foreignness(await identify(replica.checks), this.primaryIdentity);
        replica.identified = true;
      }
      const { rows } = await timed(
        replica.checks,
        'SELECT pg_is_in_recovery() AS standby, pg_last_wal_replay_lsn()::text AS replayed',
      );
      const { standby, replayed } = rows[0] as { standby: boolean; replayed: string | null };
      if (replica.foreign || !replica.identified) {
        replica.failed = true;
        why = replica.foreign ?? 'the primary could not be read to check it is its replica';
      } else if (!standby || replayed === null) {
        replica.failed = true;
        why = 'it is not a streaming replica (pg_is_in_recovery() is false)';
      } else {
        replica.checkedAt = this.now();
        replica.failed = false;
        replica.lagMs = this.lagOf(parseLsn(replayed));
        why =
          replica.lagMs > this.maxLagMs
            ? `it is ${lagWords(replica.lagMs)} behind the primary (DATABASE_READ_MAX_LAG_MS=${this.maxLagMs})`
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
   * How far behind a replica at `replayed` is, at most: the time since the newest primary position it
   * has replayed. Infinite when it has replayed none that is remembered (more than the bound behind).
   */
  private lagOf(replayed: bigint): number {
    for (let index = this.samples.length - 1; index >= 0; index--) {
      const sample = this.samples[index]!;
      if (replayed >= sample.lsn) return Math.max(0, this.now() - sample.at);
    }
    return Number.POSITIVE_INFINITY;
  }

  private isUp(replica: Replica): boolean {
    return !replica.failed && replica.checkedAt > 0 && this.now() - replica.checkedAt <= 4 * REPLICA_CHECK_MS;
  }

  private usable(replica: Replica): boolean {
    return this.isUp(replica) && replica.lagMs <= this.maxLagMs;
  }

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

  failedRead(replica: Replica, error: unknown): void {
    replica.failed = true;
    if (replica.serving) {
      replica.serving = false;
      this.events?.changed(replica.label, false, `a read on it failed (${describe(error)})`);
    }
  }

  servedBy(target: Replica | PrimaryReason): void {
    if (typeof target === 'string') this.primaryReads[target]++;
    else target.reads++;
  }
}

function checkPool(connection: pg.PoolConfig): pg.Pool {
  return openPool({ ...connection, max: 1, connectionTimeoutMillis: CHECK_TIMEOUT_MS, keepAlive: true });
}

/**
 * One check statement on its own connection, given CHECK_TIMEOUT_MS: a connection that does not answer
 * in time is destroyed, so the next check does not queue behind a statement that will never return.
 */
async function timed(pool: pg.Pool, statement: string): Promise<pg.QueryResult> {
  const client = await pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    const result = await Promise.race([client.query(statement), timeout]);
    client.release();
    return result;
  } catch (error) {
    client.release(true);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

async function identify(pool: pg.Pool): Promise<Identity> {
  const { rows } = await timed(pool, 'SELECT current_database() AS database');
  const database = rows[0]!.database as string;
  try {
    const control = await timed(pool, 'SELECT system_identifier::text AS system FROM pg_control_system()');
    return { database, system: control.rows[0]!.system as string };
  } catch (error) {
    // A role without the right to read it is checked by its database's name alone.
    if ((error as { code?: string }).code === '42501') return { database, system: undefined };
    throw error;
  }
}

/** Why a server is not a replica of the primary's database, or undefined when it is (as far as can be told). */
function foreignness(replica: Identity, primary: Identity): string | undefined {
  if (replica.system && primary.system && replica.system !== primary.system)
    return `it replicates another cluster (system identifier ${replica.system}, the primary's is ${primary.system})`;
  if (replica.database !== primary.database)
    return `its URL names database "${replica.database}", the primary's is "${primary.database}"`;
  return undefined;
}

/** `16/B374D848` as a number: the position in the WAL, comparable between servers of one cluster. */
function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

function lagWords(lagMs: number): string {
  return Number.isFinite(lagMs) ? `${Math.round(lagMs)} ms` : 'more than DATABASE_READ_MAX_LAG_MS';
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

const routers = new WeakMap<Db, ReadReplicas>();

/** Makes `replicas` the place reads of the primary's `db` may go (see readReplicasOf). */
export function useReadReplicas(db: Db, replicas: ReadReplicas): void {
  routers.set(db, replicas);
}

/** The replicas of the primary's `db`, when DATABASE_READ_URL set any. */
export function readReplicasOf(db: Db): ReadReplicas | undefined {
  return routers.get(db);
}
