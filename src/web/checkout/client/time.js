// Time on the checkout page comes from the server (`serverTime` of each details answer), carried forward
// by the monotonic clock: a buyer's wrong system clock cannot show a wrong deadline. Pure: runs in Node too.

/** Time left as people read a timer; the same spelling as the server's first paint (checkout.text.ts). */
export function formatRemaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, '0');
  if (days > 0) return `${days}d ${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}:${seconds}`;
  if (hours > 0) return `${hours}:${String(minutes).padStart(2, '0')}:${seconds}`;
  return `${minutes}:${seconds}`;
}

/** A clock reading the server's time: `sync(serverTimeIso)` after each answer, `now()` in epoch ms. */
export function serverClock(serverTimeIso, monotonic) {
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
