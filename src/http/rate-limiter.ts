import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';

export interface RateLimiterOptions {
  /**
   * How many processes share the limit, read on every take (so it must answer from memory); each allows
   * its share of the rate and of the burst. Default: 1, the whole limit is this process's.
   */
  readonly sharedBy?: () => number;
  readonly now?: () => number;
}

/**
 * A token bucket per caller, in this process's memory. A general abuse guard, not an accounting
 * limit: limits that must hold exactly across processes (key creation) are enforced in the database.
 * Where several processes serve behind a load balancer, each takes its share of the limit, so that
 * together they allow about the limit (exactly when the balancer spreads a caller's requests evenly).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();
  /** The whole limit's burst and rate, before it is shared. */
  private readonly burst: number;
  private readonly perMs: number;

  constructor(
    perMinute: number,
    private readonly options: RateLimiterOptions = {},
  ) {
    // Bursts up to ten seconds' worth of requests.
    this.burst = Math.max(10, Math.ceil(perMinute / 6));
    this.perMs = perMinute / 60_000;
  }

  /** Takes one token. Returns 0 when allowed, else the seconds until the next token. */
  take(key: string): number {
    const now = this.now();
    const { capacity, refillPerMs } = this.share();
    const bucket = this.buckets.get(key) ?? { tokens: capacity, updatedAt: now };
    // A bucket filled while fewer processes shared the limit shrinks to the smaller share at once.
    bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.updatedAt) * refillPerMs);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 100_000) this.prune(now, capacity, refillPerMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / refillPerMs / 1000);
  }

  /** This process's part: the limit divided among the processes, with room for one request at least. */
  private share(): { capacity: number; refillPerMs: number } {
    const processes = Math.max(1, this.options.sharedBy?.() ?? 1);
    return { capacity: Math.max(1, this.burst / processes), refillPerMs: this.perMs / processes };
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  private prune(now: number, capacity: number, refillPerMs: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * refillPerMs >= capacity) this.buckets.delete(key);
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** How many live HTTP processes there are (the service-processes module counts them). */
export interface ProcessCount {
  httpProcesses(): number;
}

/** The live HTTP processes, which share the API key and checkout limits; 1 where none are counted. */
export function httpProcessesOf(deps: { readonly processes?: ProcessCount }): () => number {
  return () => deps.processes?.httpProcesses() ?? 1;
}

/**
 * Limits every route of an encapsulated scope per client IP (public endpoints, where there is no key to
 * count by); answers 429 rate_limited with Retry-After. Also slows down guessing of ids. `sharedBy`: the
 * processes that share the limit (RateLimiterOptions).
 */
export function limitPerClientIp(scope: FastifyInstance, perMinute: number, sharedBy: () => number): void {
  const limiter = new RateLimiter(perMinute, { sharedBy });
  scope.addHook('onRequest', async (request) => {
    const retryAfter = limiter.take(request.ip);
    if (retryAfter > 0) {
      throw new AppError('rate_limited', 'Too many requests from this address. Retry after the delay in Retry-After.', {
        retryAfterSeconds: retryAfter,
      });
    }
  });
}
