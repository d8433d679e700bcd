import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database, Db, Executor } from './database.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** Weeks start on Mondays, midnight UTC (as PostgreSQL's date_trunc('week') has them): 1970-01-05 was one. */
const FIRST_MONDAY_MS = 4 * DAY_MS;
/** A change of partitions waits at most this long for its locks; otherwise it runs next time. */
const LOCK_TIMEOUT = '1s';
/**
 * And runs each statement at most this long: the table's readers and writers wait behind its exclusive
 * lock meanwhile. Far above what its statements take (an empty table attached, a week's workspaces
 * checked: milliseconds), so it bounds only a stall nobody foresaw; such a change runs next time.
 */
const STATEMENT_TIMEOUT = '10s';

/**
 * A table partitioned by week on a timestamp column (migrations make it, with a DEFAULT partition named
 * `<table>_default`): each week is a partition `<table>_pYYYYMMDD` named for its Monday, covering
 * [Monday 00:00 UTC, next Monday). A week, not a day: every read that does not name a time touches every
 * partition (a lock and an index probe each), so there are about six of them, not forty.
 */
export interface WeeklyPartitioned {
  readonly table: string;
  readonly column: string;
  /**
   * Columns of a primary key each week's partition has of its own, when the partitioned table has none
   * (a key of the partitioned table would have to include `column`).
   */
  readonly primaryKey?: readonly string[];
}

/**
 * A week's rows found in the DEFAULT partition (written dated ahead, or while no retention ran for more
 * than the weeks made ahead) are moved into its new partition up to this many; with more, the week stays
 * in the DEFAULT partition, whose rows retention deletes one by one. Moving them holds the week's writers.
 */
const MOVE_LIMIT = 10_000;

/**
 * Makes the partitions of the weeks from `from`'s to `until`'s that do not exist yet and that no other
 * partition's range takes. Each is created as a table of its own and then attached, which locks the
 * parent only against other schema changes (SHARE UPDATE EXCLUSIVE), not against reads and writes; the
 * DEFAULT partition is checked for rows of the new week under an exclusive lock on it, a moment once it
 * is empty. Rows of the week already in the DEFAULT partition, up to MOVE_LIMIT, are moved into the new
 * partition first, with the DEFAULT partition locked against writes (not reads) meanwhile. Resolves the
 * partitions made.
 */
export async function addWeeklyPartitions(
  db: Db,
  { table, column, primaryKey }: WeeklyPartitioned,
  from: Date,
  until: Date,
) {
  const existing = await partitionsOf(db, table);
  const made: string[] = [];
  for (let start = weekStart(from); start <= until; start = new Date(start.getTime() + WEEK_MS)) {
    const end = new Date(start.getTime() + WEEK_MS);
    const name = `${table}_p${dayName(start)}`;
    // Made already, or part of another partition's range (the time before the first week, for one).
    if (existing.some((partition) => overlaps(partition, start, end))) continue;
    const attached = await changePartitions(db, table, async (trx) => {
      // Under the table's lock: another process may have made it since the list was read.
      if (await exists(trx, name)) return false;
      const fallen = sql`${sql.table(`${table}_default`)} WHERE ${sql.ref(column)} >= ${start} AND ${sql.ref(column)} < ${end}`;
      const taken = await countUpTo(trx, fallen, MOVE_LIMIT);
      if (taken > MOVE_LIMIT) return false;
      // Attaching creates the parent's indexes on the new table; its CHECK constraints must be there already.
      await sql`CREATE TABLE ${sql.table(name)} (LIKE ${sql.table(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`.execute(
        trx,
      );
      if (taken > 0) {
        // No row of the week may reach the DEFAULT partition between the move and the attach's check.
        await sql`LOCK TABLE ${sql.table(`${table}_default`)} IN SHARE MODE`.execute(trx);
        // By name: the DEFAULT partition may be an older table whose columns are in another order.
        const columns = sql.join((await columnsOf(trx, table)).map((column) => sql.ref(column)));
        await sql`WITH moved AS (DELETE FROM ${fallen} RETURNING ${columns})
                  INSERT INTO ${sql.table(name)} (${columns}) SELECT ${columns} FROM moved`.execute(trx);
      }
      if (primaryKey)
        await sql`ALTER TABLE ${sql.table(name)} ADD PRIMARY KEY (${sql.join(primaryKey.map((key) => sql.ref(key)))})`.execute(
          trx,
        );
      await sql`ALTER TABLE ${sql.table(table)} ATTACH PARTITION ${sql.table(name)}
                FOR VALUES FROM (${sql.lit(start.toISOString())}) TO (${sql.lit(end.toISOString())})`.execute(trx);
      return true;
    });
    if (attached) made.push(name);
  }
  return made;
}

/**
 * How many rows `from` (a table and its WHERE clause) holds, counted up to one past `limit`: enough to
 * tell "too many" without reading a large partition whole.
 */
export async function countUpTo(db: Executor, from: RawBuilder<unknown>, limit: number): Promise<number> {
  const { rows } = await sql<{ found: number }>`
    SELECT count(*)::int AS found FROM (SELECT 1 FROM ${from} LIMIT ${limit + 1}) rows`.execute(db);
  return rows[0]!.found;
}

/** What must happen around a partition's drop, for a table whose rows must not simply vanish. */
export interface DropSteps {
  /**
   * Checked before the drop takes any lock: false leaves the partition for the next run without holding
   * the table (the next partitions are still tried). `mayDrop` must still check, under the lock.
   */
  readonly mayTry?: (db: Db, partition: string) => Promise<boolean>;
  /** Runs before the drop (what must outlive the rows); false: nothing more is dropped this time. */
  readonly before?: (partition: Partition) => Promise<boolean>;
  /**
   * Checked on the partition once detached, under the drop's lock, so nothing can be written to it
   * meanwhile: false leaves it attached, for the next run.
   */
  readonly mayDrop?: (trx: Transaction<Database>, partition: string) => Promise<boolean>;
}

/**
 * Drops every range partition whose whole range is before `cutoff` (the weeks, and a partition of the
 * time before the first week once that time is), oldest first: detached (a moment's exclusive lock on the
 * parent, waiting at most LOCK_TIMEOUT for statements on it to end; a partition that cannot have it is
 * left for the next run) and dropped, with no row deleted. `steps` run around each drop (see DropSteps);
 * `before` runs again for a partition whose drop was left. Resolves the partitions dropped.
 */
export async function dropPartitionsBefore(
  db: Db,
  partitioned: WeeklyPartitioned,
  cutoff: Date,
  steps: DropSteps = {},
) {
  const dropped: string[] = [];
  for (const partition of await partitionsBefore(db, partitioned, cutoff)) {
    if (steps.mayTry && !(await steps.mayTry(db, partition.name))) continue;
    if (steps.before && !(await steps.before(partition))) break;
    if (await dropPartition(db, partitioned, partition.name, steps.mayDrop)) dropped.push(partition.name);
  }
  return dropped;
}

/** The range partitions whose whole range is before `cutoff`, oldest first (what retention drops). */
export async function partitionsBefore(db: Db, { table }: WeeklyPartitioned, cutoff: Date): Promise<Partition[]> {
  return (await partitionsOf(db, table))
    .filter(({ to }) => to !== null && to.getTime() <= cutoff.getTime())
    .sort((a, b) => a.to!.getTime() - b.to!.getTime());
}

/** Thrown inside a change of partitions to roll it back and leave it for the next run. */
class LeftForNextRun extends Error {}

/**
 * Detaches and drops one partition; resolves false when it is gone already, when a lock was not had
 * within LOCK_TIMEOUT, or when `mayDrop` says no (the partition is left for the next run).
 */
function dropPartition(
  db: Db,
  { table }: WeeklyPartitioned,
  name: string,
  mayDrop?: DropSteps['mayDrop'],
): Promise<boolean> {
  return changePartitions(db, table, async (trx) => {
    if (!(await exists(trx, name))) return false;
    await sql`ALTER TABLE ${sql.table(table)} DETACH PARTITION ${sql.table(name)}`.execute(trx);
    if (mayDrop && !(await mayDrop(trx, name))) throw new LeftForNextRun();
    await sql`DROP TABLE ${sql.table(name)}`.execute(trx);
    return true;
  });
}

/**
 * Runs a change of `table`'s partitions in a transaction that first takes the table's advisory lock (two
 * processes never make or drop the same partition at once) and waits at most LOCK_TIMEOUT for any lock:
 * statements queue behind a lock being waited for, so a long wait would stall the table's readers and
 * writers; no statement runs longer than STATEMENT_TIMEOUT, for the same reason. Resolves what `change`
 * resolves; false when a lock was not had in time, a statement ran out of time, or a row of the new week
 * reached the DEFAULT partition meanwhile (the change is left for the next run).
 */
async function changePartitions(
  db: Db,
  table: string,
  change: (trx: Transaction<Database>) => Promise<boolean>,
): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
      await sql`SET LOCAL statement_timeout = ${sql.lit(STATEMENT_TIMEOUT)}`.execute(trx);
      await sql`SELECT pg_advisory_xact_lock(hashtext(${`partitions of ${table}`}))`.execute(trx);
      return change(trx);
    });
  } catch (error) {
    if (error instanceof LeftForNextRun) return false;
    const code = (error as { code?: string }).code;
    // lock_not_available, query_canceled (STATEMENT_TIMEOUT), check_violation
    if (code === '55P03' || code === '57014' || code === '23514') return false;
    throw error;
  }
}

/** The columns of `table`, in their order. */
export async function columnsOf(trx: Transaction<Database>, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT attname AS name FROM pg_attribute
     WHERE attrelid = ${table}::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`.execute(trx);
  return rows.map((row) => row.name);
}

async function exists(trx: Transaction<Database>, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS found`.execute(trx);
  return rows[0]!.found;
}

/** A partition of a table partitioned by range, as the catalog has it. */
export interface Partition {
  readonly name: string;
  /** The Monday of a weekly partition (named `<table>_pYYYYMMDD`); undefined for any other. */
  readonly week: Date | undefined;
  /** Its range [from, to): null where it is unbounded (MINVALUE, MAXVALUE) and for the DEFAULT partition. */
  readonly from: Date | null;
  readonly to: Date | null;
  readonly isDefault: boolean;
}

/** The partitions of `table` in the current schema, oldest week first, with their ranges. */
export async function partitionsOf(db: Db, table: string): Promise<Partition[]> {
  // The bounds are read back as timestamptz from the text pg_get_expr renders, in ISO style and UTC: a
  // zone abbreviation of another DateStyle could be read back as another zone.
  const { rows } = await db.transaction().execute(async (trx) => {
    await sql`SET LOCAL DateStyle = 'ISO'`.execute(trx);
    await sql`SET LOCAL TimeZone = 'UTC'`.execute(trx);
    return sql<{ name: string; range_from: Date | null; range_to: Date | null; is_default: boolean }>`
    SELECT c.relname AS name,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz AS range_from,
           (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz AS range_to,
           pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT' AS is_default
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = ${table} AND p.relnamespace = current_schema()::regnamespace
     ORDER BY c.relname`.execute(trx);
  });
  const weekly = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`);
  return rows.map((row) => {
    const match = weekly.exec(row.name);
    return {
      name: row.name,
      week: match ? new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`) : undefined,
      from: row.range_from,
      to: row.range_to,
      isDefault: row.is_default,
    };
  });
}

/** Whether a range partition other than the DEFAULT one takes some of [start, end). */
function overlaps(partition: Partition, start: Date, end: Date): boolean {
  if (partition.isDefault) return false;
  return (partition.from === null || partition.from < end) && (partition.to === null || partition.to > start);
}

function weekStart(at: Date): Date {
  return new Date(Math.floor((at.getTime() - FIRST_MONDAY_MS) / WEEK_MS) * WEEK_MS + FIRST_MONDAY_MS);
}

function dayName(day: Date): string {
  return day.toISOString().slice(0, 10).replaceAll('-', '');
}
