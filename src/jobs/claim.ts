import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import { WITHOUT_FLUSH_WAIT, type JobRow } from './job.repo.js';

// Jobs are infrastructure shared by all workspaces, so these queries are not tenant-scoped; the
// handler of a job is, through the job's `workspace_id`.

export interface ClaimOptions {
  readonly workerId: string;
  readonly kinds: readonly string[];
  readonly limit: number;
  readonly leaseSeconds: number;
  /**
   * The SQL function to claim with: `claim_jobs` (default), or one that takes its arguments, returns its
   * rows and adds a `details` column, read in the claim's statement for each job's handler.
   */
  readonly claimFunction?: string;
  /**
   * At most `limit` jobs of one workspace held by the claimer at once: `running` are those it holds
   * already. A workspace at its limit is skipped, its jobs left due for when a slot frees; jobs of no
   * workspace are not limited.
   */
  readonly perWorkspace?: {
    readonly limit: number;
    readonly running: ReadonlyMap<string, number>;
    /**
     * False: fill only the room of the workspaces in `running`, without looking for other workspaces'
     * jobs. That look visits every workspace with jobs of these kinds, so a claimer skips it while it
     * knows of nothing new (it found nothing there last time and heard of no new or newly due job since).
     */
    readonly others?: boolean;
  };
}

/** A claimed job's row, with the `details` its claim function read for it, if it reads any. */
export type ClaimedJob = JobRow & { readonly details?: unknown };

export interface Claimed {
  readonly rows: ClaimedJob[];
  /** Seconds until the next job of these kinds that is not due yet falls due; null when there is none. */
  readonly nextDueSeconds: number | null;
  /**
   * Jobs this claim chose but could not lock, another claimer having taken them meanwhile: when the
   * claim left slots free, another one finds what is left.
   */
  readonly passedOver: number;
  /** Due jobs found of workspaces not in `perWorkspace.running` (every job found, when uncapped). */
  readonly othersFound: number;
}

/**
 * Leases up to `limit` due jobs to `workerId`, oldest first, counting an attempt each, in one call of
 * `claim_jobs` (its plans are kept per session, where a statement would be planned at every claim).
 * SKIP LOCKED lets concurrent claimers take disjoint rows without waiting; a job whose lease lapsed (its
 * worker died) is due again. The same call tells when the next job falls due: one `now()` for both, so
 * every job is either claimable now or counted as not yet due, never neither.
 * Its commit does not wait for the disk flush (WITHOUT_FLUSH_WAIT).
 */
export async function claimJobs(db: Executor, options: ClaimOptions): Promise<Claimed> {
  if (options.kinds.length === 0 || options.limit < 1)
    return { rows: [], nextDueSeconds: null, passedOver: 0, othersFound: 0 };
  const cap = options.perWorkspace;
  const running = [...(cap?.running ?? [])];
  const { rows } = await sql<ClaimedRow>`
    SELECT c.* FROM ${WITHOUT_FLUSH_WAIT}, ${sql.id(options.claimFunction ?? 'claim_jobs')}(${options.kinds}::text[], ${options.workerId}, ${options.leaseSeconds}, ${options.limit},
      ${cap?.limit ?? null}::int, ${running.map(([id]) => id)}::text[],
      ${running.map(([, count]) => Math.max(0, cap!.limit - count))}::int[], ${cap?.others ?? true}) AS c`.execute(db);
  const claimed: ClaimedJob[] = [];
  let summary: ClaimedRow | undefined;
  for (const row of rows) {
    if (row.id === null) summary = row;
    else claimed.push(jobOf(row));
  }
  claimed.sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || Number(a.id - b.id));
  return {
    rows: claimed,
    nextDueSeconds: summary?.next_due_seconds ?? null,
    passedOver: summary?.passed_over ?? 0,
    othersFound: summary?.others_found ?? 0,
  };
}

function jobOf({ next_due_seconds: _, passed_over: __, others_found: ___, details, ...job }: ClaimedRow): ClaimedJob {
  return { ...(job as JobRow), ...(details !== undefined && { details }) };
}

/** A claimed job, or (all job columns null) the call's summary row. */
type ClaimedRow = { [K in keyof JobRow]: JobRow[K] | null } & {
  readonly next_due_seconds: number | null;
  readonly passed_over: number;
  readonly others_found: number;
  readonly details?: unknown;
};
