import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { monotonicMs } from './timing.js';

/** Notes when each block of a local chain was first seen, polling `eth_blockNumber` on a schedule. */
export interface BlockWatcher {
  /** Monotonic ms (shared by the processes of this machine) of the answer that first showed `block`. */
  seenAt(block: bigint): number | undefined;
  /** Since the start, or since the last `resetStats`. */
  stats(): BlockWatcherStats;
  resetStats(): void;
  /** Stops polling and closes its connection. Idempotent; never throws. */
  stop(): Promise<void>;
}

export interface BlockWatcherStats {
  readonly polls: number;
  /** Times between two answers in a row: the granularity of `seenAt` actually achieved. */
  readonly gapsMs: readonly number[];
  /** Times between the first sightings of two blocks in a row: the block interval as it was. */
  readonly blockIntervalsMs: readonly number[];
  /** Blocks that first showed in the same answer as the block after them: their `seenAt` is late. */
  readonly sharedAnswers: number;
  readonly failedPolls: number;
}

const RPC_TIMEOUT_MS = 5_000;

/**
 * Starts polling at once, every `everyMs` on a fixed schedule (a slow answer delays the next poll, never
 * the ones after it), over one keep-alive connection of its own, so no other request of this process
 * queues in front of it. Blocks up to the first answer are not timed. Loopback RPCs only.
 */
export async function startBlockWatcher(rpcUrl: string, everyMs: number): Promise<BlockWatcher> {
  const url = new URL(rpcUrl);
  if (url.protocol !== 'http:' || url.hostname !== '127.0.0.1')
    throw new Error(`refusing to watch ${url.href}: loopback only`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const blockNumber = () => rpcBlockNumber(url, agent);

  const seen = new Map<bigint, number>();
  let latest = await blockNumber();
  let lastAnswer = monotonicMs();
  let gapsMs: number[] = [];
  let blockIntervalsMs: number[] = [];
  let lastBlockAt: number | undefined;
  let sharedAnswers = 0;
  let failedPolls = 0;
  let stopped = false;

  const loop = async () => {
    const start = monotonicMs();
    for (let tick = 1; !stopped; tick++) {
      const wait = start + tick * everyMs - monotonicMs();
      if (wait > 0) await sleep(wait);
      if (stopped) return;
      try {
        const number = await blockNumber();
        const at = monotonicMs();
        gapsMs.push(at - lastAnswer);
        lastAnswer = at;
        if (number > latest + 1n) sharedAnswers += Number(number - latest - 1n);
        for (let block = latest + 1n; block <= number; block++) seen.set(block, at);
        if (number > latest) {
          if (lastBlockAt !== undefined) blockIntervalsMs.push(at - lastBlockAt);
          lastBlockAt = at;
          latest = number;
        }
      } catch {
        // A lost answer widens the gap, which maxGapMs shows; anvil gone ends the bench elsewhere.
        failedPolls += 1;
      }
    }
  };
  const done = loop();

  return {
    seenAt: (block) => seen.get(block),
    stats: () => ({ polls: gapsMs.length + failedPolls, gapsMs, blockIntervalsMs, sharedAnswers, failedPolls }),
    resetStats: () => {
      gapsMs = [];
      blockIntervalsMs = [];
      sharedAnswers = 0;
      failedPolls = 0;
    },
    stop: async () => {
      stopped = true;
      await done;
      agent.destroy();
    },
  };
}

function rpcBlockNumber(url: URL, agent: http.Agent): Promise<bigint> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] });
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: RPC_TIMEOUT_MS,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            const answer = JSON.parse(text) as { result?: unknown };
            if (typeof answer.result !== 'string') throw new Error(`eth_blockNumber answered ${text.slice(0, 200)}`);
            resolve(BigInt(answer.result));
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`eth_blockNumber took longer than ${RPC_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}
