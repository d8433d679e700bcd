import { describe, expect, it } from 'vitest';
import type { InvoiceId } from '../../src/modules/invoices/index.js';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import { OrderStateCache } from '../../src/modules/x402/order-state-cache.js';
import type { OrderState } from '../../src/modules/payment-engine/orders.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

const ws = 'ws_a' as WorkspaceId;
const other = 'ws_b' as WorkspaceId;
const order = invoiceOrder('inv_1' as InvoiceId);
/** States told apart by the wallet; the cache never looks inside. */
const state = (wallet: string): OrderState => ({ kind: 'invoice', state: { invoice: undefined, wallet } });

/** A load that counts its calls and answers `wallet`. */
function loader(wallet = 'w1') {
  const calls = { count: 0 };
  return { calls, load: () => ((calls.count += 1), Promise.resolve(state(wallet))) };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('order state cache', () => {
  it('keeps nothing until every change is heard, and again once changes may go unheard', async () => {
    const cache = new OrderStateCache();
    const { calls, load } = loader();
    await cache.read(ws, order, load);
    await cache.read(ws, order, load);
    expect(calls.count).toBe(2);

    cache.heard();
    await cache.read(ws, order, load);
    await cache.read(ws, order, load);
    expect(calls.count).toBe(3);

    cache.deaf();
    await cache.read(ws, order, load);
    expect(calls.count).toBe(4);
  });

  it('drops the changed order, or every order of a workspace whose wallet changed', async () => {
    const cache = new OrderStateCache();
    cache.heard();
    const second = invoiceOrder('inv_2' as InvoiceId);
    const { calls, load } = loader();
    for (const [workspace, ref] of [
      [ws, order],
      [ws, second],
      [other, order],
    ] as const)
      await cache.read(workspace, ref, load);
    expect(calls.count).toBe(3);

    cache.changed(`${ws} inv_1`);
    await cache.read(ws, order, load);
    await cache.read(ws, second, load);
    expect(calls.count).toBe(4);

    cache.changed(ws);
    await cache.read(ws, order, load);
    await cache.read(ws, second, load);
    await cache.read(other, order, load);
    expect(calls.count).toBe(6);
  });

  it('does not keep a state read before a change that arrived while it was read', async () => {
    const cache = new OrderStateCache();
    cache.heard();
    const before = deferred<OrderState>();
    const reading = cache.read(ws, order, () => before.promise);
    cache.changed(`${ws} inv_1`);
    before.resolve(state('before the change'));
    expect(await reading).toEqual(state('before the change'));

    expect(await cache.read(ws, order, () => Promise.resolve(state('after')))).toEqual(state('after'));
  });

  it('reads a hot order once for the requests that ask while it is read, and forgets a failed read', async () => {
    const cache = new OrderStateCache();
    cache.heard();
    const first = deferred<OrderState>();
    const { calls, load } = loader();
    const failing = cache.read(ws, order, () => first.promise);
    const joined = cache.read(ws, order, load);
    first.reject(new Error('connection lost'));
    await expect(failing).rejects.toThrow('connection lost');
    await expect(joined).rejects.toThrow('connection lost');
    expect(await cache.read(ws, order, load)).toEqual(state('w1'));
    expect(calls.count).toBe(1);
  });

  it('stays within its size by dropping the workspace whose copies came first', async () => {
    const cache = new OrderStateCache(2);
    cache.heard();
    const { calls, load } = loader();
    await cache.read(ws, order, load);
    await cache.read(other, order, load);
    await cache.read('ws_c' as WorkspaceId, order, load);
    expect(calls.count).toBe(3);
    await cache.read(other, order, load);
    expect(calls.count).toBe(3);
    await cache.read(ws, order, load);
    expect(calls.count).toBe(4);
  });

  it('reads a copy again once it is older than ten seconds, heard changes or not', async () => {
    let now = 0;
    const cache = new OrderStateCache(100, () => now);
    cache.heard();
    const { calls, load } = loader();
    await cache.read(ws, order, load);
    now = 9_999;
    await cache.read(ws, order, load);
    expect(calls.count).toBe(1);
    now = 10_001;
    await cache.read(ws, order, load);
    expect(calls.count).toBe(2);
  });

  it('keeps its size whatever was dropped or failed before: the oldest copy still goes first', async () => {
    const cache = new OrderStateCache(1);
    cache.heard();
    const { calls, load } = loader();
    await cache.read(ws, order, load);
    cache.drop(ws, 'inv_1');
    await expect(cache.read(other, order, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    await cache.read('ws_c' as WorkspaceId, order, load);
    await cache.read('ws_d' as WorkspaceId, order, load);
    expect(calls.count).toBe(3);
    // One copy at most: ws_d's pushed ws_c's out, nothing left behind by the drop or the failure.
    await cache.read('ws_c' as WorkspaceId, order, load);
    expect(calls.count).toBe(4);
  });
});
