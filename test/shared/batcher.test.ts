import { describe, expect, it } from 'vitest';
import { Batcher } from '../../src/shared/batcher.js';
import { deferred } from '../support/deferred.js';

describe('Batcher', () => {
  it('sends an item at once when idle and gathers the items that arrive meanwhile into the next batch', async () => {
    const batches: number[][] = [];
    const gate = deferred();
    const batcher = new Batcher(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await gate.promise;
      return items.map((item) => item * 10);
    });
    const first = batcher.submit(1);
    const rest = [batcher.submit(2), batcher.submit(3), batcher.submit(4)];
    expect(batches).toEqual([[1]]);
    gate.release();
    expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('splits at the largest batch and runs as many batches at once as allowed', async () => {
    const gates = [deferred(), deferred()];
    const batches: string[][] = [];
    const batcher = new Batcher(
      async (items: string[]) => {
        const gate = gates[batches.length];
        batches.push(items);
        await gate?.promise;
        return items;
      },
      { maxBatch: 2, concurrency: 2 },
    );
    const answers = Promise.all(['a', 'b', 'c', 'd', 'e'].map((item) => batcher.submit(item)));
    expect(batches).toEqual([['a'], ['b']]);
    gates[0]!.release();
    gates[1]!.release();
    expect(await answers).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(batches).toEqual([['a'], ['b'], ['c', 'd'], ['e']]);
  });

  it('sends a second batch while one runs only once enough items wait for it', async () => {
    const gate = deferred();
    const batches: number[][] = [];
    const batcher = new Batcher(
      async (items: number[]) => {
        batches.push(items);
        if (batches.length === 1) await gate.promise;
        return items;
      },
      { concurrency: 2, minBatchWhileBusy: 3 },
    );
    const answers = Promise.all([1, 2, 3, 4, 5, 6].map((item) => batcher.submit(item)));
    // 1 alone at once; 2 and 3 wait; 4 makes three waiting, and they go while 1 still runs.
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gate.release();
    expect(await answers).toEqual([1, 2, 3, 4, 5, 6]);
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('rejects every item of a failed batch and goes on with the next', async () => {
    let calls = 0;
    const batcher = new Batcher(async (items: number[]) => {
      calls++;
      if (calls === 1) throw new Error('database gone');
      return items;
    });
    const failed = batcher.submit(1);
    const next = batcher.submit(2);
    await expect(failed).rejects.toThrow('database gone');
    expect(await next).toBe(2);
  });

  it('rejects a batch answered with the wrong number of answers', async () => {
    const batcher = new Batcher(async () => [1, 2]);
    await expect(batcher.submit(1)).rejects.toThrow('a batch of 1 got 2 answers');
  });
});
