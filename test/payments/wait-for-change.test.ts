import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OrderWatchers, waitForChange } from '../../src/modules/order-changes/index.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

const WORKSPACE = 'ws_1' as WorkspaceId;
const ORDER = 'inv_1';

/** A payment of ORDER read from a stand-in store: `processing` until the test says otherwise. */
function store() {
  const state = { status: 'processing', reads: 0 };
  return {
    state,
    read: () => {
      state.reads += 1;
      return Promise.resolve({ status: state.status, order: ORDER });
    },
  };
}

function wait(watchers: OrderWatchers, read: () => Promise<{ status: string; order: string }>, timeoutMs = 30_000) {
  return waitForChange(
    read,
    (payment) => payment.order,
    (payment) => payment.status !== 'processing',
    (orderId, watcher) => watchers.watch(WORKSPACE, orderId, watcher),
    timeoutMs,
  );
}

describe('waiting for a payment outcome', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('reads again when its order changes, not on a timer, while changes are heard', async () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const { state, read } = store();
    const outcome = wait(watchers, read);
    // The first read, and one more once watching (a change between the two would be missed otherwise).
    await vi.waitFor(() => expect(state.reads).toBe(2));
    await vi.advanceTimersByTimeAsync(900);
    expect(state.reads).toBe(2);

    state.status = 'succeeded';
    watchers.changed(`${WORKSPACE} other_order`);
    await vi.advanceTimersByTimeAsync(0);
    expect(state.reads).toBe(2);
    watchers.changed(`${WORKSPACE} ${ORDER}`);

    await expect(outcome).resolves.toMatchObject({ status: 'succeeded' });
    expect(state.reads).toBe(3);
  });

  it('reads again at once when the change came while a read was on its way', async () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const state = { status: 'processing', reads: 0 };
    const read = async () => {
      state.reads += 1;
      const seen = state.status;
      // The third read (the first one watching) sees the payment before it is recorded; the change is
      // announced before that read's answer arrives.
      if (state.reads === 3) {
        state.status = 'succeeded';
        watchers.changed(`${WORKSPACE} ${ORDER}`);
      }
      await Promise.resolve();
      return { status: seen, order: ORDER };
    };
    const outcome = wait(watchers, read);
    await vi.waitFor(() => expect(state.reads).toBe(2));
    watchers.changed(`${WORKSPACE} ${ORDER}`);

    await expect(outcome).resolves.toMatchObject({ status: 'succeeded' });
    expect(state.reads).toBe(4);
  });

  it('reads every 100 ms while changes cannot be heard, and stops watching when done', async () => {
    const watchers = new OrderWatchers();
    const { state, read } = store();
    const outcome = wait(watchers, read);
    await vi.advanceTimersByTimeAsync(450);
    expect(state.reads).toBe(5);

    state.status = 'failed';
    await vi.advanceTimersByTimeAsync(100);
    await expect(outcome).resolves.toMatchObject({ status: 'failed' });
  });

  it('falls back to reading every 100 ms when the listener goes deaf', async () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const { state, read } = store();
    const outcome = wait(watchers, read);
    await vi.waitFor(() => expect(state.reads).toBe(2));
    watchers.deaf();
    await vi.advanceTimersByTimeAsync(0);
    expect(state.reads).toBe(3);
    await vi.advanceTimersByTimeAsync(300);
    expect(state.reads).toBe(6);

    state.status = 'succeeded';
    await vi.advanceTimersByTimeAsync(100);
    await expect(outcome).resolves.toMatchObject({ status: 'succeeded' });
  });

  it('answers the payment as it is at the deadline', async () => {
    const watchers = new OrderWatchers();
    watchers.heard();
    const { read } = store();
    const outcome = wait(watchers, read, 2_500);
    await vi.advanceTimersByTimeAsync(3_000);
    await expect(outcome).resolves.toMatchObject({ status: 'processing' });
  });
});
