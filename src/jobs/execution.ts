import type { Db } from '../db/database.js';
import type { WorkspaceId } from '../shared/ids.js';
import { JOB_DELETED, RetryLater, type Job, type JobClaim, type JobHandler, type JobLogger } from './job.js';
import type { ClaimedJob } from './claim.js';
import { expireLease, failJob, releaseJob, wakeJob } from './job.repo.js';
import { Lease } from './lease.js';

export interface ExecutionContext {
  readonly db: Db;
  /** Deletes a finished job; false when the claim was lost (`completeJobs`). */
  readonly complete: (claim: JobClaim) => Promise<boolean>;
  readonly workerId: string;
  readonly leaseSeconds: number;
  readonly backoff: (attempts: number) => number;
  readonly logger: JobLogger;
  /**
   * Told when a job is given back to wait for a signal (RetryLater's `wakeOn`), e.g. to watch for it, with
   * when its run began (performance.now()). True when the signal came since: it is given back due at once.
   * Asked again once the job waits, in case the signal came while it was being given back.
   */
  readonly onWait?: (signal: string, since: number) => boolean;
}

/** `deleted`: the handler deleted its job itself (JOB_DELETED). */
type Outcome = { readonly ok: true; readonly deleted: boolean } | { readonly ok: false; readonly error: unknown };

/**
 * One run of one claimed job: the handler under a heartbeated lease, then its outcome recorded, fenced
 * by the claim. `done` never rejects.
 */
export class JobExecution {
  readonly done: Promise<void>;
  private readonly job: Job;
  private readonly claim: JobClaim;
  private readonly controller = new AbortController();
  private readonly lease: Lease;
  private interrupted = false;

  constructor(
    private readonly context: ExecutionContext,
    row: ClaimedJob,
    handler: JobHandler,
    private readonly acquiredAt: number,
  ) {
    this.claim = { id: row.id, workerId: context.workerId, attempts: row.attempts };
    this.job = {
      id: row.id,
      kind: row.kind,
      workspaceId: row.workspace_id as WorkspaceId | null,
      payload: row.payload,
      attempts: row.attempts,
      maxAttempts: row.max_attempts,
      claim: this.claim,
      ...(row.details !== undefined && { details: row.details }),
    };
    this.lease = new Lease({
      db: context.db,
      claim: this.claim,
      leaseSeconds: context.leaseSeconds,
      acquiredAt,
      logger: context.logger,
      onLost: (reason) => {
        context.logger.warn(this.fields({ reason }), 'job lease lost; aborting its handler');
        this.controller.abort(new Error(reason));
      },
    });
    this.done = this.run(handler);
  }

  /** The runner is stopping: abort the handler; if it gives up, the job goes back to the queue unspent. */
  interrupt(): void {
    this.interrupted = true;
    this.controller.abort(new Error('the job runner is stopping'));
  }

  /**
   * For a handler that ignored `interrupt`: ends its lease now, as if this worker had died, so another
   * worker takes the job at once rather than when the lease would have run out. The handler may still be
   * running, fenced off from the job; the process is about to exit. Never throws.
   */
  async abandon(): Promise<void> {
    await this.lease.end();
    try {
      if (await expireLease(this.context.db, this.claim))
        this.context.logger.warn(this.fields({}), 'job handler ignored the stop; its job is handed to other workers');
    } catch (error) {
      this.context.logger.error(
        this.fields({ err: error }),
        'could not hand over the job of a stuck handler; it runs again after its lease',
      );
    }
  }

  private async run(handler: JobHandler): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = { ok: true, deleted: (await handler(this.job, this.controller.signal)) === JOB_DELETED };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      this.lease.stop();
    }
    try {
      await this.record(outcome);
    } catch (error) {
      // At least once: the lease lapses and the job runs again.
      this.context.logger.error(
        this.fields({ err: error }),
        'could not record a job outcome; it runs again after its lease',
      );
    }
  }

  private async record(outcome: Outcome): Promise<void> {
    const { db, logger } = this.context;
    if (outcome.ok) {
      if (outcome.deleted) return;
      if (!(await this.context.complete(this.claim)))
        logger.warn(this.fields({}), 'job finished after losing its lease; it may run again');
      return;
    }
    const { error } = outcome;
    if (error instanceof RetryLater || this.interrupted) {
      let delay = error instanceof RetryLater ? error.delaySeconds : 0;
      let wakeOn = error instanceof RetryLater ? error.wakeOn : undefined;
      // A wake-up sent while the job ran passed it by (only waiting jobs are woken), and the handler may
      // have looked before what was signalled: it runs again now rather than at the next signal.
      if (wakeOn && this.context.onWait?.(wakeOn, this.acquiredAt)) [delay, wakeOn] = [0, undefined];
      if (!(await releaseJob(db, this.claim, delay, wakeOn)))
        return void logger.warn(this.fields({}), 'could not release a job: its lease was lost');
      // The signal may also have come while the release was on its way: its wake-up then found the job
      // still running, and passed it by. Asked again now that it waits, it is woken here.
      if (wakeOn && this.context.onWait?.(wakeOn, this.acquiredAt)) await wakeJob(db, this.job.id, wakeOn);
      return;
    }
    const result = await failJob(db, this.claim, describe(error), this.context.backoff(this.job.attempts));
    if (result === 'failed') logger.error(this.fields({ err: error }), 'job failed on its last attempt; giving up');
    else if (result === 'retrying') logger.warn(this.fields({ err: error }), 'job failed; retrying later');
    else logger.warn(this.fields({ err: error }), 'job failed after losing its lease');
  }

  private fields(extra: Record<string, unknown>): Record<string, unknown> {
    return { jobId: String(this.job.id), kind: this.job.kind, attempts: this.job.attempts, ...extra };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
