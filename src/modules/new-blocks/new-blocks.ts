import { blockMs, type Network } from '../../chain/networks.js';
import type { Db } from '../../db/database.js';
import { wakeJobs, type JobLogger } from '../../jobs/index.js';
import type { ChainPort } from '../../chain/chain-port.js';

/** The signal of payment jobs waiting for the next block: a settlement to be mined, or confirmations. */
export const NEW_BLOCK = 'new_block';
/** How often block numbers are read while a job waits, away from the moment a block is due. */
const POLL_MS = 200;
/** How often they are read from just before a block is due until it came. */
const DUE_POLL_MS = 20;
/** How long before a block is due the reads quicken. */
const DUE_WINDOW_MS = 100;
/** How long the watcher keeps reading after the last time a job began to wait for a block here. */
const WATCH_FOR_MS = 60_000;

export interface NewBlockWatcherDeps {
  readonly db: Db;
  readonly chain: ChainPort;
  readonly networks: readonly Network[];
  readonly logger: JobLogger;
}

/**
 * Reads the networks' block numbers while payment jobs wait for a block, and makes those jobs due (in
 * every process: the wake-up is an UPDATE and a NOTIFY) as soon as one arrives. So a payment is recorded
 * on the block that confirms it, not up to a block time later. Blocks come at the network's block time,
 * so the reads follow them: every 200 ms, and every 20 ms from 100 ms before the next block is due
 * (one block time after the last one was seen) until it came or is a block time late. A 1 s chain costs
 * about as many reads as one every 100 ms would and is seen about 10 ms after its block instead of 50.
 * Idle, it asks the nodes nothing. A block it misses costs time, never a payment: each job's own retry
 * delay stays the fallback.
 */
export class NewBlockWatcher {
  private timer: NodeJS.Timeout | undefined;
  private watchUntil = 0;
  private readonly heights = new Map<string, bigint>();
  /** When each network's last new block was seen (performance.now()). */
  private readonly seenAt = new Map<string, number>();
  private stopped = false;
  /** When this watcher last saw a new block on any network (performance.now()), before waking the jobs. */
  private lastBlockAt = -Infinity;

  constructor(private readonly deps: NewBlockWatcherDeps) {}

  /** Whether a new block was seen after `since` (performance.now()): a job that looked before it missed its wake-up. */
  sawBlockSince(since: number): boolean {
    return this.lastBlockAt > since;
  }

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
        // A first reading is not a block seen as it came: it says nothing of when the next one is due.
        if (this.heights.has(network.name)) this.seenAt.set(network.name, performance.now());
        this.heights.set(network.name, height);
        return true;
      });
      if (moved.length > 0) {
        this.lastBlockAt = performance.now();
        moved.forEach((network) => chain.blockArrived?.(network));
        await wakeJobs(db, NEW_BLOCK);
      }
    } catch (error) {
      logger.warn({ err: error }, 'could not wake the payments waiting for a block; their retry delay applies');
    }
    this.timer = undefined;
    if (this.stopped) return;
    if (Date.now() < this.watchUntil)
      this.timer = setTimeout(
        () => void this.look(),
        pauseBeforeNextRead(performance.now(), this.seenAt, this.deps.networks),
      );
    else {
      this.heights.clear();
      this.seenAt.clear();
    }
  }
}

/**
 * Until the next read of block numbers, at `now` (ms): DUE_POLL_MS from DUE_WINDOW_MS before a block is
 * due on some network (a block time after `seenAt` saw its last one) until it is a block time late,
 * else up to POLL_MS.
 */
export function pauseBeforeNextRead(
  now: number,
  seenAt: ReadonlyMap<string, number>,
  networks: readonly Pick<Network, 'name' | 'blockTimeSeconds'>[],
): number {
  let wait = POLL_MS;
  for (const network of networks) {
    const seen = seenAt.get(network.name);
    if (seen === undefined) continue;
    const interval = blockMs(network);
    const quicken = seen + interval - DUE_WINDOW_MS;
    if (now >= seen + 2 * interval) continue;
    wait = Math.min(wait, Math.max(DUE_POLL_MS, quicken - now));
  }
  return wait;
}
