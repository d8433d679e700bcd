import { describe, expect, it } from 'vitest';
import { Turns } from '../../src/shared/turns.js';
import { deferred } from '../support/deferred.js';

describe('Turns', () => {
  it('lets `width` callers run at once and the others in order of arrival', async () => {
    const turns = new Turns(2);
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const runs = gates.map((g, index) =>
      turns.run(async () => {
        started.push(index);
        most = Math.max(most, ++running);
        await g.promise;
        running -= 1;
        return index;
      }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1]);

    gates[1]!.release();
    await runs[1];
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([0, 1, 2]);

    gates[0]!.release();
    gates[2]!.release();
    gates[3]!.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
  });

  it('passes the turn on when a caller fails', async () => {
    const turns = new Turns(1);
    const failed = turns.run(() => Promise.reject(new Error('no')));
    const next = turns.run(() => Promise.resolve('yes'));
    await expect(failed).rejects.toThrow('no');
    await expect(next).resolves.toBe('yes');
  });
});
