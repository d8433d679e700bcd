import { sql, type Transaction } from 'kysely';
import type { Database, Db } from './database.js';

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;
/** Weeks start on Mondays, midnight UTC (as PostgreSQL's date_trunc('week') has them): 1970-01-05 was one. */
const FIRST_MONDAY_MS = 4 * DAY_MS;
/** A change of partitions waits at most this long for its locks; otherwise it runs next time. */
const LOCK_TIMEOUT = '1s';

/**
 * A table partitioned by week on a timestamp column (migrations make it, with a DEFAULT partition named
 * `<table>_default`): each week is a partition `<table>_pYYYYMMDD` named for its Monday, covering
 * [Monday 00:00 UTC, next Monday). A week, not a day: every read that does not name a time touches every
 * partition (a lock and an index probe each), so there are about six of them, not forty.
 */
export interface WeeklyPartitioned {
  readonly table: string;
  readonly column: string;
}

/**
 * Makes the partitions of the weeks from `from`'s to `until`'s that do not exist yet. Each is created as
 * a table of its own and then attached, which locks the parent only against other schema changes (SHARE
 * UPDATE EXCLUSIVE), not against reads and writes; the DEFAULT partition is checked for rows of the new
 * week under an exclusive lock on it, a moment once it is empty. A week that already has rows in the
 * DEFAULT partition (written dated ahead) is left there: attaching it would fail. Resolves the
 * partitions made.
 */
export async function addWeeklyPartitions(db: Db, { table, column }: WeeklyPartitioned, from: Date, until: Date) {
  const existing = new Set((await partitionsOf(db, table)).map((partition) => partition.name));
  const made: string[] = [];
  for (let start = weekStart(from); start <= until; start = new Date(start.getTime() + WEEK_MS)) {
    const end = new Date(start.getTime() + WEEK_MS);
    const name = `${table}_p${dayName(start)}`;
    if (existing.has(name)) continue;
    const attached = await changePartitions(db, table, async (trx) => {
      // Under the table's lock: another process may have made it since the list was read.
      if (await exists(trx, name)) return false;
      const { rows } = await sql<{ taken: boolean }>`
        SELECT EXISTS (SELECT 1 FROM ${sql.table(`${table}_default`)}
                        WHERE ${sql.ref(column)} >= ${start} AND ${sql.ref(column)} < ${end}) AS taken`.execute(trx);
      if (rows[0]!.taken) return false;
      // Attaching creates the parent's indexes on the new, empty table.
      await sql`CREATE TABLE ${sql.table(name)} (LIKE ${sql.table(table)} INCLUDING DEFAULTS)`.execute(trx);
      await sql`ALTER TABLE ${sql.table(table)} ATTACH PARTITION ${sql.table(name)}
                FOR VALUES FROM (${sql.lit(start.toISOString())}) TO (${sql.lit(end.toISOString())})`.execute(trx);
      return true;
    });
    if (attached) made.push(name);
  }
  return made;
}

/**
 * Drops every weekly partition whose whole week is before `cutoff`: detached (a moment's exclusive lock
 * on the parent, waiting at most LOCK_TIMEOUT for statements on it to end; a partition that cannot have
 * it is left for the next run) and dropped, with no row read or deleted. Resolves the partitions dropped.
 */
export async function dropWeeklyPartitionsBefore(db: Db, partitioned: WeeklyPartitioned, cutoff: Date) {
  const dropped: string[] = [];
  for (const partition of await weeksBefore(db, partitioned, cutoff))
    if (await dropPartition(db, partitioned, partition.name)) dropped.push(partition.name);
  return dropped;
}

/** The weekly partitions whose whole week is before `cutoff`, oldest first. */
async function weeksBefore(db: Db, { table }: WeeklyPartitioned, cutoff: Date): Promise<{ name: string }[]> {
  return (await partitionsOf(db, table)).filter(
    ({ week }) => week !== undefined && week.getTime() + WEEK_MS <= cutoff.getTime(),
  );
}

/**
 * Detaches and drops one partition; resolves false when it is gone already, or when a lock was not had
 * within LOCK_TIMEOUT (the partition is left for the next run).
 */
function dropPartition(db: Db, { table }: WeeklyPartitioned, name: string): Promise<boolean> {
  return changePartitions(db, table, async (trx) => {
    if (!(await exists(trx, name))) return false;
    await sql`ALTER TABLE ${sql.table(table)} DETACH PARTITION ${sql.table(name)}`.execute(trx);
    await sql`DROP TABLE ${sql.table(name)}`.execute(trx);
    return true;
  });
}

/**
 * Runs a change of `table`'s partitions in a transaction that first takes the table's advisory lock (two
 * processes never make or drop the same partition at once) and waits at most LOCK_TIMEOUT for any lock:
 * statements queue behind a lock being waited for, so a long wait would stall the table's readers and
 * writers. Resolves what `change` resolves; false when a lock was not had in time, or when a row of the
 * new week reached the DEFAULT partition meanwhile (the change is left for the next run).
 */
async function changePartitions(
  db: Db,
  table: string,
  change: (trx: Transaction<Database>) => Promise<boolean>,
): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      await sql`SET LOCAL lock_timeout = ${sql.lit(LOCK_TIMEOUT)}`.execute(trx);
      await sql`SELECT pg_advisory_xact_lock(hashtext(${`partitions of ${table}`}))`.execute(trx);
      return change(trx);
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '55P03' || code === '23514') return false; // lock_not_available, check_violation
    throw error;
  }
}

async function exists(trx: Transaction<Database>, name: string): Promise<boolean> {
  const { rows } = await sql<{ found: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS found`.execute(trx);
  return rows[0]!.found;
}

/** The partitions of `table` in the current schema, with the Monday of each weekly one. */
export async function partitionsOf(db: Db, table: string): Promise<{ name: string; week: Date | undefined }[]> {
  const { rows } = await sql<{ name: string }>`
    SELECT c.relname AS name
      FROM pg_inherits i
      JOIN pg_class c ON c.oid = i.inhrelid
      JOIN pg_class p ON p.oid = i.inhparent
     WHERE p.relname = ${table} AND p.relnamespace = current_schema()::regnamespace
     ORDER BY c.relname`.execute(db);
  const weekly = new RegExp(`^${table}_p(\\d{4})(\\d{2})(\\d{2})$`);
  return rows.map(({ name }) => {
    const match = weekly.exec(name);
    return { name, week: match ? new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00Z`) : undefined };
  });
}

function weekStart(at: Date): Date {
  return new Date(Math.floor((at.getTime() - FIRST_MONDAY_MS) / WEEK_MS) * WEEK_MS + FIRST_MONDAY_MS);
}

function dayName(day: Date): string {
  return day.toISOString().slice(0, 10).replaceAll('-', '');
}
