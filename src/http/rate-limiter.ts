import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';

/**
 * A token bucket per caller, in this process's memory. A general abuse guard, not an accounting
 * limit: limits that must hold across processes (key creation) are enforced in the database.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedAt: number }>();
  private readonly capacity: number;
  private readonly refillPerMs: number;

  constructor(
    perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    // Bursts up to ten seconds' worth of requests.
    this.capacity = Math.max(10, Math.ceil(perMinute / 6));
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes one token. Returns 0 when allowed, else the seconds until the next token. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.capacity, updatedAt: now };
    bucket.tokens = Math.min(this.capacity, bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (this.buckets.size > 100_000) this.prune(now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000);
  }

  /** Forgets buckets that have refilled completely: they hold no information. */
  private prune(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.updatedAt) * this.refillPerMs >= this.capacity) this.buckets.delete(key);
    }
  }
}

/**
 * Limits every route of an encapsulated scope per client IP (public endpoints, where there is no key to
 * count by); answers 429 rate_limited with Retry-After. Also slows down guessing of ids.
 */
export function limitPerClientIp(scope: FastifyInstance, perMinute: number): void {
  const limiter = new RateLimiter(perMinute);
  scope.addHook('onRequest', async (request) => {
    const retryAfter = limiter.take(request.ip);
    if (retryAfter > 0) {
      throw new AppError('rate_limited', 'Too many requests from this address. Retry after the delay in Retry-After.', {
        retryAfterSeconds: retryAfter,
      });
    }
  });
}
