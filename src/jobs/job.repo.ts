import { sql, type Selectable } from 'kysely';
import type { Executor } from '../db/database.js';
import type { WorkspaceId } from '../shared/ids.js';
import type { JobTable } from './job.table.js';
import type { JobClaim } from './job.js';

// Jobs are infrastructure shared by all workspaces, so these queries are not tenant-scoped; the
// handler of a job is, through the job's `workspace_id`.

/** Where the `jobs_notify` trigger (and `wakeRunners`) announce due jobs; runners LISTEN on it. */
export const JOBS_CHANNEL = 'jobs';

export type JobRow = Selectable<JobTable>;

/**
 * In a statement's FROM list: its transaction's COMMIT returns without waiting for the disk flush.
 * Only for the queue's own bookkeeping, claims and completions, sent as statements of their own: a
 * database crash can undo the last fraction of a second of them, and the job then runs again, as after
 * a worker's crash between a handler's work and its completion, which every handler allows. What a
 * handler writes commits durably, and flushes the bookkeeping before it along with it.
 */
export const WITHOUT_FLUSH_WAIT = sql`set_config('synchronous_commit', 'off', true) AS without_flush_wait`;

export type EnqueueJobInput = {
  readonly kind: string;
  readonly workspaceId?: WorkspaceId | null;
  /** Stored as JSON. */
  readonly payload?: unknown;
  /** At most one pending or running job per (kind, uniqueKey): a later enqueue with the same key is a no-op. */
  readonly uniqueKey?: string;
  readonly maxAttempts?: number;
} & (
  | { readonly runAt?: Date; readonly delaySeconds?: never }
  /** Relative to the database clock, which every worker shares. */
  | { readonly delaySeconds?: number; readonly runAt?: never }
);

const MAX_ERROR_LENGTH = 2000;

/**
 * Adds a job. Pass the use case's transaction so the job commits (and NOTIFY fires) with its state
 * change, or not at all. Returns the id, or undefined when a job with the same unique key is pending.
 */
export async function enqueueJob(executor: Executor, input: EnqueueJobInput): Promise<bigint | undefined> {
  if (input.maxAttempts !== undefined && !(Number.isInteger(input.maxAttempts) && input.maxAttempts >= 1)) {
    throw new RangeError(`maxAttempts must be a positive integer, got ${input.maxAttempts}`);
  }
  const runAt =
    input.runAt ??
    (input.delaySeconds === undefined ? undefined : sql<Date>`now() + make_interval(secs => ${input.delaySeconds})`);
  const row = await executor
    .insertInto('jobs')
    .values({
      kind: input.kind,
      workspace_id: input.workspaceId ?? null,
      payload: JSON.stringify(input.payload ?? {}),
      unique_key: input.uniqueKey ?? null,
      ...(input.maxAttempts !== undefined && { max_attempts: input.maxAttempts }),
      ...(runAt !== undefined && { run_at: runAt }),
    })
    // Names the partial unique index by its predicate; failed jobs do not hold their key.
    .onConflict((oc) =>
      oc.columns(['kind', 'unique_key']).where('unique_key', 'is not', null).where('failed_at', 'is', null).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

/**
 * Makes the waiting job with this key due now. A running job is left to its lease (its handler decides
 * when it runs next), so callers must tolerate that delay.
 */
export async function expediteJob(executor: Executor, kind: string, uniqueKey: string): Promise<void> {
  await executor
    .updateTable('jobs')
    .set({ run_at: sql<Date>`now()` })
    .where('kind', '=', kind)
    .where('unique_key', '=', uniqueKey)
    .where('failed_at', 'is', null)
    .where('run_at', '>', sql<Date>`now()`)
    .execute();
}

/** Heartbeat. False when the lease is no longer this claim's (taken over or the job is gone). */
export async function extendLease(db: Executor, claim: JobClaim, leaseSeconds: number): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: sql<Date>`now() + make_interval(secs => ${leaseSeconds})` })
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Done: the jobs of these claims go, in one call (`complete_jobs`) that does not wait for the disk flush
 * (WITHOUT_FLUSH_WAIT). Answers each claim at its index: false when the claim was lost, i.e. another
 * worker may run the job again.
 */
export async function completeJobs(db: Executor, claims: readonly JobClaim[]): Promise<boolean[]> {
  if (claims.length === 0) return [];
  const { rows } = await sql<{ id: bigint }>`
    SELECT id FROM ${WITHOUT_FLUSH_WAIT}, complete_jobs(${claims.map((c) => c.id.toString())}::bigint[], ${claims.map((c) => c.workerId)}::text[],
                                 ${claims.map((c) => c.attempts)}::int[]) AS id`.execute(db);
  const deleted = new Set(rows.map((row) => row.id));
  return claims.map((claim) => deleted.has(claim.id));
}

export type FailOutcome = 'retrying' | 'failed' | 'lost';

/**
 * Records a failed attempt: the job runs again after `delaySeconds` (by the database clock), or, on its
 * last attempt, stays as a failed row for inspection. 'lost' when the claim was no longer held.
 */
export async function failJob(
  db: Executor,
  claim: JobClaim,
  error: string,
  delaySeconds: number,
): Promise<FailOutcome> {
  const row = await db
    .updateTable('jobs')
    .set({
      locked_by: null,
      locked_until: null,
      last_error: error.slice(0, MAX_ERROR_LENGTH),
      run_at: sql<Date>`now() + make_interval(secs => ${delaySeconds})`,
      wake_on: null,
      failed_at: sql<Date | null>`CASE WHEN attempts >= max_attempts THEN now() END`,
    })
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempts)
    .returning('failed_at')
    .executeTakeFirst();
  if (!row) return 'lost';
  return row.failed_at === null ? 'retrying' : 'failed';
}

/**
 * Gives the job back without spending the attempt (a handler waiting, or the runner stopping): it runs
 * again after `delaySeconds`, or as soon as `wakeOn` is signalled (`wakeJobs`). False when the claim was no
 * longer held.
 */
export async function releaseJob(
  db: Executor,
  claim: JobClaim,
  delaySeconds: number,
  wakeOn?: string,
): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set((eb) => ({
      attempts: eb('attempts', '-', 1),
      locked_by: null,
      locked_until: null,
      run_at: sql<Date>`now() + make_interval(secs => ${delaySeconds})`,
      wake_on: wakeOn ?? null,
    }))
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Ends the claim's lease now, as if its worker had died: any worker may claim the job at once, the attempt
 * stays counted (the handler may have done part of its work), and the old claim's writes stay fenced off.
 * On the last attempt the job is failed by `failAbandonedJobs`, as after a crash. False when the claim was
 * no longer held.
 */
export async function expireLease(db: Executor, claim: JobClaim): Promise<boolean> {
  const result = await db
    .updateTable('jobs')
    .set({ locked_until: sql<Date>`now()` })
    .where('id', '=', claim.id)
    .where('locked_by', '=', claim.workerId)
    .where('attempts', '=', claim.attempts)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Makes every job that waits for `signal` due now and wakes the runners; resolves how many. Jobs being run
 * are left alone: their handler gives them back with a fresh wait.
 */
export async function wakeJobs(db: Executor, signal: string): Promise<number> {
  // One round trip: on a busy pool (a block's payments all recording at once) a second one waits its turn.
  const { rows } = await sql<{ woken: number }>`
    WITH woken AS (
      UPDATE jobs SET run_at = now(), wake_on = NULL WHERE wake_on = ${signal} AND locked_by IS NULL RETURNING 1
    )
    SELECT count(*)::int AS woken, CASE WHEN count(*) > 0 THEN pg_notify(${JOBS_CHANNEL}, '') END AS notified
      FROM woken`.execute(db);
  return rows[0]!.woken;
}

/** Makes one job waiting for `signal` due now and wakes the runners, as wakeJobs does for all of them. */
export async function wakeJob(db: Executor, id: bigint, signal: string): Promise<void> {
  await sql`
    WITH woken AS (
      UPDATE jobs SET run_at = now(), wake_on = NULL
       WHERE id = ${id} AND wake_on = ${signal} AND locked_by IS NULL RETURNING 1
    )
    SELECT CASE WHEN count(*) > 0 THEN pg_notify(${JOBS_CHANNEL}, '') END AS notified FROM woken`.execute(db);
}

/**
 * Wakes every runner listening, as a new job does: for jobs made due by an update (the trigger fires on
 * insert only), which would otherwise wait for the next poll.
 */
export async function wakeRunners(db: Executor): Promise<void> {
  await sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`.execute(db);
}

/**
 * A worker that dies on a job's last attempt records no failure, and the job is not claimable any more:
 * mark such jobs failed once their lease lapsed, so they free their unique key. Returns how many.
 */
export async function failAbandonedJobs(db: Executor, kinds: readonly string[]): Promise<number> {
  if (kinds.length === 0) return 0;
  const result = await db
    .updateTable('jobs')
    .set({
      locked_by: null,
      locked_until: null,
      failed_at: sql<Date>`now()`,
      last_error: 'the lease of the last attempt expired: its worker stopped or died',
    })
    .where('kind', 'in', kinds)
    .where('failed_at', 'is', null)
    .whereRef('attempts', '>=', 'max_attempts')
    .where('locked_until', '<', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** One job kind's share of the queue, for /metrics. */
export interface JobKindBacklog {
  readonly kind: string;
  /** Due jobs no worker holds: what the runners have yet to claim. */
  readonly due: number;
  /** How long the oldest of those has been due, in seconds by the database clock; 0 when none is. */
  readonly oldestDueSeconds: number;
  /** Jobs under a live lease: running on some worker now. */
  readonly leased: number;
}

/**
 * The queue across all workers, per kind. One range scan of `jobs_due_idx` over the jobs already due:
 * a leased job is always among them, since a claim takes only due jobs and nothing moves the `run_at` of
 * a job while it is held (a release or a failure ends the lease in the same update). Kinds with neither
 * due nor leased jobs are absent. "Due" is what `claimJobs` would take.
 */
export async function jobBacklog(db: Executor): Promise<JobKindBacklog[]> {
  const claimable = sql`attempts < max_attempts AND (locked_until IS NULL OR locked_until < now())`;
  const rows = await db
    .selectFrom('jobs')
    .select([
      'kind',
      sql<number>`(count(*) FILTER (WHERE ${claimable}))::int`.as('due'),
      sql<number>`coalesce(extract(epoch FROM now() - min(run_at) FILTER (WHERE ${claimable})), 0)::float8`.as(
        'oldest_due_seconds',
      ),
      sql<number>`(count(*) FILTER (WHERE locked_until >= now()))::int`.as('leased'),
    ])
    .where('failed_at', 'is', null)
    .where('run_at', '<=', sql<Date>`now()`)
    .groupBy('kind')
    .orderBy('kind')
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    due: row.due,
    oldestDueSeconds: row.oldest_due_seconds,
    leased: row.leased,
  }));
}
