import { expect, it } from 'vitest';
import { pauseBeforeNextRead } from '../../src/modules/new-blocks/new-blocks.js';

const oneSecond = { name: 'fast', blockTimeSeconds: 1 };
const twoSeconds = { name: 'base', blockTimeSeconds: 2 };

it('reads every 200 ms while no block has been seen come', () => {
  expect(pauseBeforeNextRead(5_000, new Map(), [oneSecond, twoSeconds])).toBe(200);
});

it('waits for the window before the next block is due, then reads every 20 ms until it came', () => {
  const seen = new Map([['fast', 10_000]]);
  // Due at 11,000: reads quicken from 10,900.
  expect(pauseBeforeNextRead(10_010, seen, [oneSecond])).toBe(200);
  expect(pauseBeforeNextRead(10_750, seen, [oneSecond])).toBe(150);
  expect(pauseBeforeNextRead(10_900, seen, [oneSecond])).toBe(20);
  expect(pauseBeforeNextRead(11_400, seen, [oneSecond])).toBe(20);
  // A whole block time late: the slow pace again, until a block is seen.
  expect(pauseBeforeNextRead(12_000, seen, [oneSecond])).toBe(200);
});

it('follows the network whose block is due first', () => {
  const seen = new Map([
    ['fast', 10_000],
    ['base', 9_500],
  ]);
  expect(pauseBeforeNextRead(10_000, seen, [oneSecond, twoSeconds])).toBe(200);
  expect(pauseBeforeNextRead(10_850, seen, [oneSecond, twoSeconds])).toBe(50);
  // Networks without a block time are taken at the 2 s default.
  expect(pauseBeforeNextRead(11_420, new Map([['base', 9_500]]), [{ name: 'base' }])).toBe(20);
});
