import type { OrderWatcher } from './order-watchers.js';

/** Reads while changes of the order cannot be heard (no listener, or it reconnects). */
const POLL_MS = 100;
/** Reads while they are heard: only in case what is read changes without a change of its order. */
const HEARD_POLL_MS = 1_000;

/**
 * Reads something of an order (a payment of it) until `done` says so, and resolves with the last read,
 * also at the deadline. Reads again whenever the order changes (`watch`: OrderWatchers.watch of the
 * workspace), so that many callers waiting at once cost a read a change each, not ten reads a second
 * each; and every 100 ms while changes cannot be heard.
 */
export async function waitForChange<T>(
  read: () => Promise<T>,
  orderOf: (value: T) => string,
  done: (value: T) => boolean,
  watch: (orderId: string, watcher: OrderWatcher) => (() => void) | undefined,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | undefined;
  let heard = false;
  // Told while a read was on its way: that read may predate the change.
  let toldSinceRead = false;
  let unwatch: (() => void) | undefined;
  try {
    for (;;) {
      toldSinceRead = false;
      const value = await read();
      if (done(value) || Date.now() >= deadline) return value;
      if (!unwatch) {
        unwatch = watch(orderOf(value), (event) => {
          heard = event === 'changed';
          toldSinceRead = true;
          wake?.();
        });
        heard = unwatch !== undefined;
        // A change between the read and the watch would go unheard: read once more, now watching.
        if (unwatch) continue;
      }
      if (toldSinceRead) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(heard ? HEARD_POLL_MS : POLL_MS, deadline - Date.now()));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  } finally {
    unwatch?.();
  }
}
