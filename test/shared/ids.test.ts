import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newWorkspaceId, randomToken } from '../../src/shared/ids.js';

describe('random tokens', () => {
  it('are base32 of the given length and never repeat, across many refills of the random pool', () => {
    const seen = new Set<string>();
    // 4 KiB of random bytes serve 157 tokens of 26: this crosses the refill a few hundred times.
    for (let index = 0; index < 50_000; index += 1) {
      const token = randomToken();
      expect(token).toMatch(/^[0-9a-hjkmnp-tv-z]{26}$/);
      seen.add(token);
    }
    expect(seen.size).toBe(50_000);
    expect(randomToken(5)).toHaveLength(5);
    expect(newWorkspaceId()).toMatch(new RegExp(ID_PATTERN));
  });

  it('use every character of the alphabet about as often', () => {
    const counts = new Map<string, number>();
    for (let index = 0; index < 4_000; index += 1)
      for (const character of randomToken()) counts.set(character, (counts.get(character) ?? 0) + 1);
    // 104,000 characters over 32 symbols: 3,250 each on average; a stuck or skewed source falls far outside.
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(count).toBeGreaterThan(2_800);
  });
});
