import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/http/rate-limiter.js';

/** A limiter on a clock that moves only when told to, shared by `processes.count` processes. */
function limiter(perMinute: number, processes = { count: 1 }) {
  const clock = { now: 1_000_000 };
  const limiter = new RateLimiter(perMinute, { now: () => clock.now, sharedBy: () => processes.count });
  /** Takes until refused; the number allowed and the Retry-After of the refusal. */
  const drain = (key: string) => {
    let allowed = 0;
    for (;;) {
      const retryAfter = limiter.take(key);
      if (retryAfter > 0) return { allowed, retryAfter };
      allowed += 1;
      if (allowed > 10_000) throw new Error('never refused');
    }
  };
  return { limiter, clock, processes, drain };
}

describe('RateLimiter', () => {
  it('alone, allows a burst of ten seconds worth, then one request per refill', () => {
    const { clock, drain } = limiter(600);
    expect(drain('key')).toEqual({ allowed: 100, retryAfter: 1 });
    clock.now += 1_000;
    expect(drain('key')).toEqual({ allowed: 10, retryAfter: 1 });
    expect(drain('other key')).toEqual({ allowed: 100, retryAfter: 1 });
  });

  it('shared by two processes, allows each half the burst and half the rate', () => {
    const { clock, drain } = limiter(600, { count: 2 });
    expect(drain('key')).toEqual({ allowed: 50, retryAfter: 1 });
    clock.now += 1_000;
    expect(drain('key')).toEqual({ allowed: 5, retryAfter: 1 });
  });

  it('divides the smallest burst too, and its Retry-After grows with the processes', () => {
    // 6 a minute: a burst of 10 (the floor), then one every 10 s; two processes share both.
    const alone = limiter(6);
    expect(alone.drain('key')).toEqual({ allowed: 10, retryAfter: 10 });
    const shared = limiter(6, { count: 2 });
    expect(shared.drain('key')).toEqual({ allowed: 5, retryAfter: 20 });
    shared.clock.now += 20_000;
    expect(shared.drain('key')).toEqual({ allowed: 1, retryAfter: 20 });
  });

  it('leaves every process room for one request however many share the limit', () => {
    const { clock, drain } = limiter(60, { count: 1_000 });
    expect(drain('key')).toEqual({ allowed: 1, retryAfter: 1_000 });
    clock.now += 1_000_000;
    expect(drain('key')).toEqual({ allowed: 1, retryAfter: 1_000 });
  });

  it('follows the count as processes join and leave', () => {
    const { clock, processes, drain, limiter: rateLimiter } = limiter(600);
    for (let i = 0; i < 30; i += 1) expect(rateLimiter.take('key')).toBe(0);
    // 70 tokens left; a second process joins: this one's bucket holds its share, 50, at most.
    processes.count = 2;
    expect(drain('key')).toEqual({ allowed: 50, retryAfter: 1 });
    // The other leaves: the whole rate refills this bucket, up to the whole burst.
    processes.count = 1;
    clock.now += 60_000;
    expect(drain('key')).toEqual({ allowed: 100, retryAfter: 1 });
  });
});
