import type { Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import { wakeJobs, type JobLogger } from '../../jobs/index.js';
import type { ChainPort } from '../../chain/chain-port.js';

/** The signal of payment jobs waiting for the next block: a settlement to be mined, or confirmations. */
export const NEW_BLOCK = 'new_block';
/** How often block numbers are read while a job waits. */
const POLL_MS = 100;
/** How long the watcher keeps reading after the last time a job began to wait for a block here. */
const WATCH_FOR_MS = 60_000;

export interface NewBlockWatcherDeps {
  readonly db: Db;
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  readonly logger: JobLogger;
}

/**
 * Reads the networks' block numbers every 100 ms while payment jobs wait for a block, and makes those
 * jobs due (in every process: the wake-up is an UPDATE and a NOTIFY) as soon as one arrives. So a payment
 * is recorded on the block that confirms it, not up to a block time later. Idle, it asks the nodes
 * nothing. A block it misses costs time, never a payment: each job's own retry delay stays the fallback.
 */
export class NewBlockWatcher {
  private timer: NodeJS.Timeout | undefined;
  private watchUntil = 0;
  private readonly heights = new Map<string, bigint>();
  private stopped = false;

  constructor(private readonly deps: NewBlockWatcherDeps) {}

  /** A job began to wait for a block: read block numbers for the next minute. */
  expect(): void {
    this.watchUntil = Date.now() + WATCH_FOR_MS;
    if (!this.timer && !this.stopped) this.timer = setTimeout(() => void this.look(), 0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async look(): Promise<void> {
    const { db, chain, networks, logger } = this.deps;
    try {
      const heights = await Promise.all(networks.map((network) => chain.blockNumber(network).catch(() => undefined)));
      // A first reading counts as new: a block may have come between the job's look and this one.
      const moved = networks.filter((network, index) => {
        const height = heights[index];
        if (height === undefined || height <= (this.heights.get(network.name) ?? -1n)) return false;
        this.heights.set(network.name, height);
        return true;
      });
      if (moved.length > 0) await wakeJobs(db, NEW_BLOCK);
    } catch (error) {
      logger.warn({ err: error }, 'could not wake the payments waiting for a block; their retry delay applies');
    }
    this.timer = undefined;
    if (this.stopped) return;
    if (Date.now() < this.watchUntil) this.timer = setTimeout(() => void this.look(), POLL_MS);
    else this.heights.clear();
  }
}
