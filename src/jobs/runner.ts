import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import type { Db } from '../db/database.js';
import { randomToken } from '../shared/ids.js';
import { within } from '../shared/within.js';
import { backoffSeconds } from './backoff.js';
import { JobExecution, type ExecutionContext } from './execution.js';
import { silentJobLogger, type JobClaim, type JobHandlers, type JobLogger } from './job.js';
import { claimJobs, type ClaimedJob } from './claim.js';
import { JOBS_CHANNEL, completeJobs, failAbandonedJobs, wakeRunners } from './job.repo.js';
import { ChannelListener } from '../db/listener.js';
import { Batcher } from '../shared/batcher.js';

export interface JobRunnerOptions {
  readonly db: Db;
  /** Where the dedicated LISTEN connection goes (the database `db` uses). */
  readonly connection: pg.ClientConfig;
  /** By job kind; the runner claims only these kinds. */
  readonly handlers: JobHandlers;
  /** Unique per runner; recorded as `locked_by`. Default: host, pid and a random suffix. */
  readonly workerId?: string;
  /**
   * The SQL function claims go through (see ClaimOptions.claimFunction): one that also reads what the
   * handlers need, which they find in `job.details`. Default `claim_jobs`.
   */
  readonly claimFunction?: string;
  /** Handlers running at once. Default 4. */
  readonly concurrency?: number;
  /**
   * Jobs one claim takes at most; with more slots free, the runner claims again at once. Default: every
   * free slot. Smaller claims start work sooner and keep its phases (claiming, running, recording)
   * overlapping instead of moving all slots through them together.
   */
  readonly maxClaim?: number;
  /**
   * Jobs of one workspace running at once, at most; unset, no limit. The claim skips a workspace at
   * its limit, so one whose jobs hang holds that many slots and no more.
   */
  readonly perWorkspaceLimit?: number;
  /** Default 30 s; extended every third of it while the handler runs. */
  readonly leaseSeconds?: number;
  /** Fallback when no notification arrives (and the pace of retries after database errors). Default 5 s. */
  readonly pollIntervalMs?: number;
  /** How long `stop` lets running handlers finish before aborting them. Default 10 s. */
  readonly stopTimeoutMs?: number;
  /** Seconds before retrying after the n-th failed attempt. Default: exponential with jitter. */
  readonly backoff?: (attempts: number) => number;
  readonly logger?: JobLogger;
  /** Told when a handler gives its job back to wait for a signal (RetryLater's `wakeOn`): ExecutionContext's. */
  readonly onWait?: (signal: string, since: number) => boolean;
}

/** After `stop` aborts handlers, how long they get to return before being abandoned. */
const ABORT_GRACE_MS = 2_000;

/**
 * Runs jobs from the `jobs` table: claims due jobs when notified, when a handler finishes, when a
 * scheduled job falls due, and every poll interval; runs at most `concurrency` handlers, each under a
 * lease. Every job runs at least once; a job's runs never overlap while handlers honour their signal.
 * The loop never throws: database errors are logged and retried.
 */
export class JobRunner {
  readonly workerId: string;
  private readonly kinds: string[];
  private readonly concurrency: number;
  private readonly maxClaim: number;
  private readonly pollIntervalMs: number;
  private readonly stopTimeoutMs: number;
  private readonly context: ExecutionContext;
  private readonly notifications: ChannelListener;
  private readonly running = new Set<JobExecution>();
  private readonly runningByWorkspace = new Map<string, number>();
  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  private loopDone: Promise<void> = Promise.resolve();
  private stopped: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  /**
   * Whether a capped claim should look for jobs of workspaces with none running here. Off once such a
   * look found nothing; on again with anything that can bring such jobs: a notification (a new job, a
   * job handed back), a timer (a job falling due, the poll), a workspace's last job here ending.
   */
  private lookBeyondRunning = true;
  /** Counts the news above, so that news arriving during a claim is not undone by its answer. */
  private news = 0;
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(private readonly options: JobRunnerOptions) {
    this.workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomToken(6)}`;
    this.kinds = Object.keys(options.handlers);
    this.concurrency = positive('concurrency', options.concurrency ?? 4, true);
    this.maxClaim = positive('maxClaim', options.maxClaim ?? this.concurrency, true);
    this.pollIntervalMs = positive('pollIntervalMs', options.pollIntervalMs ?? 5_000);
    this.stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    if (options.perWorkspaceLimit !== undefined) positive('perWorkspaceLimit', options.perWorkspaceLimit, true);
    const logger = options.logger ?? silentJobLogger;
    // Handlers finishing together have their jobs deleted by one statement.
    const completions = new Batcher((claims: JobClaim[]) => completeJobs(options.db, claims));
    this.context = {
      db: options.db,
      complete: (claim) => completions.submit(claim),
      workerId: this.workerId,
      leaseSeconds: positive('leaseSeconds', options.leaseSeconds ?? 30),
      backoff: options.backoff ?? ((attempts) => backoffSeconds(attempts)),
      logger,
      ...(options.onWait && { onWait: options.onWait }),
    };
    // Woken by every notification, and once on each (re)connect: notifications sent meanwhile are lost.
    // Deaf (behind a transaction pooler, or reconnecting), the runner finds new jobs by its poll.
    this.notifications = new ChannelListener(
      options.connection,
      JOBS_CHANNEL,
      'new jobs',
      {
        onMessage: () => this.wake(true),
        onListening: () => this.wake(true),
      },
      logger,
    );
  }

  /** Resolves once listening (or once the first attempt to listen failed; it keeps retrying). */
  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('a JobRunner starts once');
    this.state = 'running';
    await this.notifications.start();
    this.loopDone = this.loop();
  }

  /**
   * Claims nothing more, lets running handlers finish for `stopTimeoutMs`, then aborts them: a job whose
   * handler gives up goes back to the queue without spending its attempt; one whose handler is still
   * running after a short grace has its lease ended, so that another worker takes it at once. Either way
   * the other runners are woken. Never throws.
   */
  stop(): Promise<void> {
    this.stopped ??= this.shutdown();
    return this.stopped;
  }

  private async shutdown(): Promise<void> {
    this.state = 'stopping';
    this.wake();
    await this.loopDone;
    await this.notifications.stop();
    const settled = () => Promise.all([...this.running].map((execution) => execution.done));
    if (!(await within(settled(), this.stopTimeoutMs))) {
      for (const execution of this.running) execution.interrupt();
      if (!(await within(settled(), ABORT_GRACE_MS))) {
        const stuck = [...this.running];
        this.context.logger.warn({ running: stuck.length }, 'job handlers ignored the stop; handing their jobs over');
        await within(Promise.all(stuck.map((execution) => execution.abandon())), ABORT_GRACE_MS);
      }
      // The jobs given back are due now; without this, other runners would find them at their next poll.
      await wakeRunners(this.options.db).catch((error: unknown) =>
        this.context.logger.warn({ err: error }, 'could not wake other runners for the jobs handed back'),
      );
    }
    this.state = 'stopped';
  }

  private async loop(): Promise<void> {
    while (this.state === 'running') {
      const waitMs = await this.tick();
      await this.sleep(waitMs);
    }
  }

  /** One round of claiming. Returns how long to sleep unless woken. */
  private async tick(): Promise<number> {
    try {
      await this.sweep();
      const slots = this.concurrency - this.running.size;
      // Full: a finishing handler wakes the loop.
      if (slots <= 0) return this.pollIntervalMs;
      const free = Math.min(slots, this.maxClaim);
      const acquiredAt = performance.now();
      const newsBefore = this.news;
      const limit = this.options.perWorkspaceLimit;
      const claimed = await claimJobs(this.options.db, {
        workerId: this.workerId,
        kinds: this.kinds,
        limit: free,
        leaseSeconds: this.context.leaseSeconds,
        ...(this.options.claimFunction && { claimFunction: this.options.claimFunction }),
        ...(limit !== undefined && {
          perWorkspace: { limit, running: this.runningByWorkspace, others: this.lookBeyondRunning },
        }),
      });
      if (limit !== undefined && claimed.othersFound === 0 && this.news === newsBefore) this.lookBeyondRunning = false;
      const { rows, nextDueSeconds, passedOver } = claimed;
      // Measured from when the answer arrived, which is no earlier than the database's now() it is relative to.
      const dueAt = nextDueSeconds === null ? null : performance.now() + nextDueSeconds * 1000;
      for (const row of rows) this.execute(row, acquiredAt);
      // As many as asked for: more may be due, at once if slots are left.
      if (rows.length === free) return rows.length < slots ? 0 : this.pollIntervalMs;
      // The claim stopped at a workspace it filled: look past it at once.
      if (passedOver > 0) return 0;
      if (dueAt === null) return this.pollIntervalMs;
      // Zero when it fell due during the claim: claim again at once.
      return Math.min(this.pollIntervalMs, Math.max(0, dueAt - performance.now()));
    } catch (error) {
      this.context.logger.error({ err: error }, 'could not claim jobs; retrying after the poll interval');
      return this.pollIntervalMs;
    }
  }

  private async sweep(): Promise<void> {
    if (performance.now() - this.lastSweep < this.pollIntervalMs) return;
    this.lastSweep = performance.now();
    const failed = await failAbandonedJobs(this.options.db, this.kinds);
    if (failed > 0) this.context.logger.warn({ failed }, 'failed jobs whose last attempt was abandoned');
  }

  private execute(row: ClaimedJob, acquiredAt: number): void {
    const handler = this.options.handlers[row.kind];
    if (!handler) return; // Unreachable: only handled kinds are claimed.
    const execution = new JobExecution(this.context, row, handler, acquiredAt);
    const workspaceId = row.workspace_id;
    this.running.add(execution);
    if (workspaceId !== null)
      this.runningByWorkspace.set(workspaceId, (this.runningByWorkspace.get(workspaceId) ?? 0) + 1);
    void execution.done.then(() => {
      this.running.delete(execution);
      let lastOfItsWorkspace = false;
      if (workspaceId !== null) {
        const left = this.runningByWorkspace.get(workspaceId)! - 1;
        lastOfItsWorkspace = left === 0;
        if (lastOfItsWorkspace) this.runningByWorkspace.delete(workspaceId);
        else this.runningByWorkspace.set(workspaceId, left);
      }
      this.wake(lastOfItsWorkspace);
    });
  }

  /** `news`: jobs of workspaces with none running here may be due (see `lookBeyondRunning`). */
  private wake(news = false): void {
    if (news) {
      this.lookBeyondRunning = true;
      this.news++;
    }
    this.woken = true;
    this.wakeUp?.();
  }

  /** Sleeps `ms` or until woken; a wake that arrived while the loop was busy is not lost. */
  private sleep(ms: number): Promise<void> {
    if (this.woken || this.state !== 'running') {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      // Timers are for jobs falling due and for the poll: either may be news.
      const timer = setTimeout(() => {
        this.wake(true);
        done();
      }, ms);
      this.wakeUp = done;
    });
  }
}

function positive(name: string, value: number, integer = false): number {
  if (!(value > 0) || (integer && !Number.isInteger(value)))
    throw new RangeError(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${value}`);
  return value;
}
