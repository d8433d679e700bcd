import { sql, type RawBuilder } from 'kysely';
import type { Executor } from '../db/database.js';
import type { JobRow } from './job.repo.js';

// Jobs are infrastructure shared by all workspaces, so these queries are not tenant-scoped; the
// handler of a job is, through the job's `workspace_id`.

export interface ClaimOptions {
  readonly workerId: string;
  readonly kinds: readonly string[];
  readonly limit: number;
  readonly leaseSeconds: number;
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

export interface Claimed {
  readonly rows: JobRow[];
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
 * Leases up to `limit` due jobs to `workerId` in one statement, oldest first, counting an attempt each.
 * SKIP LOCKED lets concurrent claimers take disjoint rows without waiting; a job whose lease lapsed (its
 * worker died) is due again. The same statement tells when the next job falls due: one `now()` for
 * both, so every job is either claimable now or counted as not yet due, never neither.
 */
export async function claimJobs(db: Executor, options: ClaimOptions): Promise<Claimed> {
  if (options.kinds.length === 0 || options.limit < 1)
    return { rows: [], nextDueSeconds: null, passedOver: 0, othersFound: 0 };
  const candidates = options.perWorkspace ? cappedCandidates(options, options.perWorkspace) : oldestCandidates(options);
  const { rows } = await sql<ClaimedRow>`
    WITH RECURSIVE ${candidates}, locked AS MATERIALIZED (
      SELECT id FROM jobs WHERE id = ANY(ARRAY(SELECT id FROM chosen)) AND ${isDue(options.kinds)}
         FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE jobs
         SET attempts = jobs.attempts + 1,
             locked_by = ${options.workerId},
             locked_until = now() + make_interval(secs => ${options.leaseSeconds})
        FROM locked
       WHERE jobs.id = locked.id
      RETURNING jobs.*
    ), next AS (
      SELECT extract(epoch FROM min(run_at) - now())::float8 AS next_due_seconds,
             ((SELECT count(*) FROM chosen) - (SELECT count(*) FROM locked))::int AS passed_over,
             (SELECT count(*) FROM others)::int AS others_found
        FROM jobs
       WHERE kind = ANY(${options.kinds}::text[]) AND failed_at IS NULL AND run_at > now()
    )
    SELECT claimed.*, next.next_due_seconds, next.passed_over, next.others_found FROM next LEFT JOIN claimed ON true`.execute(
    db,
  );
  const claimed: JobRow[] = [];
  for (const { next_due_seconds: _, passed_over: __, others_found: ___, ...row } of rows)
    if (row.id !== null) claimed.push(row as JobRow);
  claimed.sort((a, b) => a.run_at.getTime() - b.run_at.getTime() || Number(a.id - b.id));
  const [first] = rows;
  return {
    rows: claimed,
    nextDueSeconds: first?.next_due_seconds ?? null,
    passedOver: first?.passed_over ?? 0,
    othersFound: first?.others_found ?? 0,
  };
}

/** Claimable now: due, attempts left, and no live lease. */
function isDue(kinds: readonly string[]): RawBuilder<unknown> {
  return sql`kind = ANY(${kinds}::text[])
         AND failed_at IS NULL
         AND run_at <= now()
         AND attempts < max_attempts
         AND (locked_until IS NULL OR locked_until < now())`;
}

/**
 * The oldest due jobs, locked as they are found (so that concurrent claimers take disjoint ones): `others`
 * and `chosen`, the same rows.
 */
function oldestCandidates(options: ClaimOptions): RawBuilder<unknown> {
  return sql`others AS MATERIALIZED (
      SELECT id, workspace_id, run_at FROM jobs WHERE ${isDue(options.kinds)}
       ORDER BY run_at, id LIMIT ${options.limit}
       FOR UPDATE SKIP LOCKED
    ), chosen AS (SELECT id FROM others)`;
}

/**
 * The oldest due jobs with at most `limit` of one workspace, as `chosen`: up to its room from each
 * workspace running some here; up to the limit from each other workspace (`others`, found by skipping
 * from one workspace to the next along jobs_workspace_due_idx: a workspace's backlog costs one probe,
 * not a read of each of its jobs); jobs of no workspace. Read unlocked, so that only the rows chosen
 * are locked (each lock is a write).
 */
function cappedCandidates(options: ClaimOptions, cap: NonNullable<ClaimOptions['perWorkspace']>): RawBuilder<unknown> {
  const due = isDue(options.kinds);
  const perWorkspace = Math.min(cap.limit, options.limit);
  const running = [...cap.running].filter(([, count]) => count < cap.limit);
  const workspaces = sql`workspace_id IS NOT NULL AND failed_at IS NULL AND kind = ANY(${options.kinds}::text[])`;
  // ORDER BY … LIMIT 1 rather than min(): the index walk it asks for stays the plan however stale the
  // table's statistics are (a queue's size swings faster than they follow).
  return sql`workspaces(workspace_id) AS (
      (SELECT workspace_id FROM jobs WHERE ${workspaces} AND ${cap.others ?? true} ORDER BY workspace_id LIMIT 1)
      UNION ALL
      SELECT (SELECT workspace_id FROM jobs WHERE ${workspaces} AND workspace_id > w.workspace_id
               ORDER BY workspace_id LIMIT 1)
        FROM workspaces w WHERE w.workspace_id IS NOT NULL
    ), others AS MATERIALIZED (
      SELECT j.* FROM workspaces w
       CROSS JOIN LATERAL (
         SELECT id, workspace_id, run_at FROM jobs WHERE ${due} AND workspace_id = w.workspace_id
          ORDER BY run_at, id LIMIT ${perWorkspace}) j
       WHERE w.workspace_id IS NOT NULL AND w.workspace_id <> ALL(${[...cap.running.keys()]}::text[])
      UNION ALL
      (SELECT id, workspace_id, run_at FROM jobs WHERE ${due} AND workspace_id IS NULL AND ${cap.others ?? true}
        ORDER BY run_at, id LIMIT ${options.limit})
    ), running AS MATERIALIZED (
      SELECT j.* FROM unnest(${running.map(([id]) => id)}::text[], ${running.map(([, n]) => cap.limit - n)}::int[])
                   AS r(workspace_id, room)
       CROSS JOIN LATERAL (
         SELECT id, workspace_id, run_at FROM jobs WHERE ${due} AND workspace_id = r.workspace_id
          ORDER BY run_at, id LIMIT least(r.room, ${perWorkspace})) j
    ), chosen AS (
      SELECT id FROM (SELECT * FROM others UNION ALL SELECT * FROM running) c ORDER BY run_at, id LIMIT ${options.limit}
    )`;
}

/** A claimed job with the statement's one-row answer about the rest; no job at all when none was claimed. */
type ClaimedRow = { [K in keyof JobRow]: JobRow[K] | null } & {
  readonly next_due_seconds: number | null;
  readonly passed_over: number;
  readonly others_found: number;
};
