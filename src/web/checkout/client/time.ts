// Time on the checkout page comes from the server (`serverTime` of each details answer), carried forward
// by the monotonic clock: a buyer's wrong system clock cannot show a wrong deadline.

/** A clock reading the server's time: `sync(serverTimeIso)` after each answer, `now()` in epoch ms. */
export interface ServerClock {
  sync(iso: string): void;
  now(): number;
}

export function serverClock(serverTimeIso: string, monotonic: () => number): ServerClock {
  let base = Date.parse(serverTimeIso);
  let at = monotonic();
  return {
    sync(iso) {
      base = Date.parse(iso);
      at = monotonic();
    },
    now: () => base + (monotonic() - at),
  };
}
