import { describe, expect, it } from 'vitest';
import { backoffSeconds, DEFAULT_BACKOFF } from '../../src/jobs/backoff.js';

const noJitter = { ...DEFAULT_BACKOFF, jitter: 0 };

describe('backoffSeconds', () => {
  it('doubles from the base delay with each failed attempt', () => {
    expect([1, 2, 3, 4].map((attempts) => backoffSeconds(attempts, noJitter))).toEqual([2, 4, 8, 16]);
  });

  it('never exceeds the cap, even for huge attempt counts', () => {
    expect(backoffSeconds(12, noJitter)).toBe(3600);
    expect(backoffSeconds(10_000, DEFAULT_BACKOFF, () => 0)).toBe(3600);
  });

  it('shortens the delay by at most the jitter share', () => {
    expect(backoffSeconds(3, DEFAULT_BACKOFF, () => 0)).toBe(8);
    expect(backoffSeconds(3, DEFAULT_BACKOFF, () => 0.999_999)).toBeCloseTo(8 * 0.8, 4);
    expect(backoffSeconds(3, DEFAULT_BACKOFF, () => 0.5)).toBeCloseTo(7.2, 6);
  });

  it('treats attempt 0 or less like the first', () => {
    expect(backoffSeconds(0, noJitter)).toBe(2);
  });
});
