import { performance } from 'node:perf_hooks';
import type { Db } from '../db/database.js';
import type { JobLogger } from './job.js';
import type { JobClaim } from './job.js';
import { extendLease } from './job.repo.js';

export interface LeaseOptions {
  readonly db: Db;
  readonly claim: JobClaim;
  readonly leaseSeconds: number;
  /** `performance.now()` when the claim was sent: the lease cannot have started earlier. */
  readonly acquiredAt: number;
  readonly logger: JobLogger;
  /** Called at most once, when the lease is lost or runs out before it could be extended. */
  readonly onLost: (reason: string) => void;
}

/**
 * Keeps a claimed job's lease alive while its handler runs: extends it every third of the lease, and
 * declares it lost when an extension is refused or none succeeded in time. The local deadline is
 * counted from when each extension was *sent*, so it never falls after the database's `locked_until`:
 * the handler hears of the loss before another worker can claim the job.
 */
export class Lease {
  private readonly leaseMs: number;
  private readonly heartbeat: NodeJS.Timeout;
  private expiry: NodeJS.Timeout | undefined;
  private extension: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: LeaseOptions) {
    this.leaseMs = options.leaseSeconds * 1000;
    this.armExpiry(options.acquiredAt + this.leaseMs);
    this.heartbeat = setInterval(() => this.extend(), this.leaseMs / 3);
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.expiry);
  }

  /** Stops, then waits for an extension in flight: once it resolves, this lease writes nothing more. */
  async end(): Promise<void> {
    this.stop();
    await this.extension;
  }

  private extend(): void {
    // A slow extension is not stacked on; the expiry timer covers one that never returns.
    if (this.extension || this.stopped) return;
    this.extension = this.sendExtension().finally(() => (this.extension = undefined));
  }

  /** Never throws. */
  private async sendExtension(): Promise<void> {
    const sentAt = performance.now();
    try {
      const held = await extendLease(this.options.db, this.options.claim, this.options.leaseSeconds);
      if (this.stopped) return;
      if (held) this.armExpiry(sentAt + this.leaseMs);
      else this.lose('lease lost: the job was taken over or removed');
    } catch (error) {
      this.options.logger.warn(
        { err: error, jobId: String(this.options.claim.id) },
        'could not extend a job lease; retrying',
      );
    }
  }

  private armExpiry(deadline: number): void {
    clearTimeout(this.expiry);
    this.expiry = setTimeout(
      () => this.lose('lease expired: it could not be extended in time'),
      Math.max(0, deadline - performance.now()),
    );
  }

  private lose(reason: string): void {
    if (this.stopped) return;
    this.stop();
    this.options.onLost(reason);
  }
}
