import { performance } from 'node:perf_hooks';
import type { BenchRequest } from './scenario.js';

/** Events per page: the largest `limit` the feed allows. */
export const PAGE_SIZE = 1000;

/** Where a reader pages from: the service, or the bare server that stands for the reader's own bound. */
export interface FeedTarget {
  /** Always loopback: `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly request: BenchRequest;
}

export interface Traversal {
  readonly events: number;
  readonly seconds: number;
  readonly pageMs: readonly number[];
  /** Pages that were not 200, and events whose id did not follow the one before. */
  readonly errors: number;
}

interface FeedPage {
  events: { id: string }[];
  nextCursor: string;
  hasMore: boolean;
}

/** The URL of the page after `cursor`. */
export function pageUrl(target: FeedTarget, cursor: string): string {
  return `${target.origin}${target.request.path}?after=${cursor}&limit=${PAGE_SIZE}`;
}

/**
 * One GET /readyz, so that the reader's first page is not also its HTTP client's first request (about
 * 20 ms of the client's own start and a new connection): a merchant's feed reader is a running process.
 * It reads nothing of the feed.
 */
export async function warmClient(target: FeedTarget): Promise<void> {
  const response = await fetch(`${target.origin}/readyz`);
  await response.arrayBuffer();
}

/**
 * Pages through the feed from the start, up to `maxEvents` events, as a client does: `fetch`, then
 * `response.json()`, following `nextCursor` and checking that ids follow each other.
 */
export async function readThroughApi(target: FeedTarget, maxEvents = Infinity): Promise<Traversal> {
  const pageMs: number[] = [];
  let events = 0;
  let errors = 0;
  let cursor = '0';
  const started = performance.now();
  for (;;) {
    const pageStarted = performance.now();
    const response = await fetch(pageUrl(target, cursor), { headers: target.request.headers });
    if (response.status !== 200) {
      errors += 1;
      await response.arrayBuffer();
      break;
    }
    const page = (await response.json()) as FeedPage;
    pageMs.push(performance.now() - pageStarted);
    for (const event of page.events) {
      if (BigInt(event.id) !== BigInt(cursor) + 1n) errors += 1;
      cursor = event.id;
      events += 1;
    }
    if (!page.hasMore || events >= maxEvents) break;
  }
  return { events, seconds: (performance.now() - started) / 1000, pageMs, errors };
}

export function median(runs: Traversal[]): Traversal {
  return [...runs].sort((a, b) => a.events / a.seconds - b.events / b.seconds)[Math.floor(runs.length / 2)]!;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
