import type { WorkspaceId } from '../shared/ids.js';

/**
 * One claim of a job: the lease holder and the attempt number together fence every later write, so a
 * worker whose lease was taken over cannot complete, fail or extend the new holder's run.
 */
export interface JobClaim {
  readonly id: bigint;
  readonly workerId: string;
  readonly attempts: number;
}

/** A claimed job as its handler sees it. `attempts` counts this run (1 on the first). */
export interface Job {
  readonly id: bigint;
  readonly kind: string;
  readonly workspaceId: WorkspaceId | null;
  /** The JSON stored at enqueue; the handler validates it. */
  readonly payload: unknown;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly claim: JobClaim;
  /** What the runner's claim function read for this job (JobRunnerOptions.claimFunction); absent without one. */
  readonly details?: unknown;
}

/**
 * What a handler resolves with when it deleted its own job, fenced by `job.claim`, in the transaction
 * of its work's last write: the runner then has nothing left to record for it.
 */
export const JOB_DELETED = 'deleted';

/**
 * Does the work of one job. Runs at least once per job (a worker may die after the work and before
 * recording it), so it must be idempotent. It must stop soon after `signal` aborts: the signal aborts when
 * the lease is lost or the runner stops, and only then is "never twice at the same time" guaranteed.
 * Resolving completes the job (the runner deletes it, unless the handler resolves JOB_DELETED); throwing
 * retries it with backoff; throwing `RetryLater` reschedules it.
 */
export type JobHandler = (job: Job, signal: AbortSignal) => Promise<void | typeof JOB_DELETED>;

export type JobHandlers = Readonly<Record<string, JobHandler>>;

/**
 * Thrown by a handler that is not failing but waiting (e.g. for confirmations): the job runs again after
 * `delaySeconds` and the attempt is not counted against `max_attempts`.
 */
export class RetryLater extends Error {
  override name = 'RetryLater';
  constructor(
    readonly delaySeconds: number,
    message = `retry in ${delaySeconds} s`,
    /** A signal that makes the job due before the delay is up (`wakeJobs`): the delay is the fallback. */
    readonly wakeOn?: string,
  ) {
    super(message);
  }
}

export interface JobLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export const silentJobLogger: JobLogger = { info() {}, warn() {}, error() {} };
