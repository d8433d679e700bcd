// Keeps the invoices a list shows current: it follows the workspace's invoice event stream
// (GET …/invoices/events) and polls where there is none.
import { workspacePath } from './api.js';
import type { InvoiceChange } from './api-types.js';

/** How often the shown invoices are read again where the stream cannot be had. */
const POLL_MS = 5000;
/** A stream that ends or breaks again within this long of the last time is given up for polling. */
const FLAKY_MS = 30_000;
/** The longest a first read waits for the stream to open. */
const OPEN_WAIT_MS = 1000;

export interface InvoiceFollower {
  /** Follows the workspace's invoices (a different workspace ends the previous stream). */
  start(workspaceId: string): void;
  /**
   * Resolves once a change committed after now is sure to be announced (the stream is open), or when
   * it will not be (polling) or is slow to open: a list read after it misses no change.
   */
  ready(): Promise<void>;
  stop(): void;
}

/**
 * `changed(id)` runs for each invoice the stream names; `refresh()` when any shown invoice may have
 * changed: after a gap in the stream, for a burst too large to name, and every POLL_MS while polling.
 * While `visible()` is false nothing is read and following ends.
 */
export function followInvoices({
  visible,
  changed,
  refresh,
}: {
  readonly visible: () => boolean;
  readonly changed: (invoiceId: string) => Promise<void>;
  readonly refresh: () => Promise<void>;
}): InvoiceFollower {
  let workspaceId: string | undefined;
  let stream: EventSource | undefined;
  let opened: Promise<void> = Promise.resolve();
  let poll: number | undefined;
  // Bumped by every start and stop, so a poll or an event of an earlier one does nothing.
  let generation = 0;

  // Failed reads are silent, as the detail's are: the next event, poll or navigation reads again.
  const quietly = (work: Promise<void>) => work.catch(() => {});

  function follow(id: string, mine: number): void {
    const source = new window.EventSource(workspacePath(id, 'invoices', 'events'));
    stream = source;
    let isOpen = false;
    // Set when a change may have gone unannounced since the list was read: the stream broke off, or the
    // first read went ahead before it opened.
    let missed = false;
    let lastFailure = -Infinity;
    let settle = () => {};
    opened = new Promise<void>((resolve) => {
      settle = resolve;
      window.setTimeout(() => {
        missed ||= !isOpen;
        resolve();
      }, OPEN_WAIT_MS);
    });
    /** Whether this stream is still the one followed and its list on screen; if not shown, following ends. */
    const current = (): boolean => {
      if (mine !== generation) return false;
      if (visible()) return true;
      stop();
      return false;
    };
    source.addEventListener('open', () => {
      isOpen = true;
      settle();
      if (missed && current()) quietly(refresh());
      missed = false;
    });
    source.addEventListener('invoice', (event) => {
      if (!current()) return;
      const { id: invoiceId } = JSON.parse((event as MessageEvent<string>).data) as InvoiceChange;
      quietly(changed(invoiceId));
    });
    source.addEventListener('invoices', () => {
      if (current()) quietly(refresh());
    });
    source.addEventListener('error', () => {
      settle();
      if (!current()) return;
      // Refused (no session, too many streams), or ending again and again (the service cannot hear every
      // change now, or something between cuts it): poll instead. Otherwise it reconnects by itself.
      const now = Date.now();
      if (source.readyState === EventSource.CLOSED || now - lastFailure < FLAKY_MS) return fallBack(mine);
      lastFailure = now;
      isOpen = false;
      missed = true;
    });
  }

  function fallBack(mine: number): void {
    stream?.close();
    stream = undefined;
    opened = Promise.resolve();
    quietly(refresh()); // what changed since the stream last worked
    schedulePoll(mine);
  }

  function schedulePoll(mine: number): void {
    poll = window.setTimeout(async () => {
      if (mine !== generation) return;
      if (!visible()) return stop();
      // A tab in the background reads nothing; it catches up at its next poll once shown.
      if (!document.hidden) await quietly(refresh());
      if (mine === generation) schedulePoll(mine);
    }, POLL_MS);
  }

  function stop(): void {
    generation += 1;
    stream?.close();
    stream = undefined;
    opened = Promise.resolve();
    window.clearTimeout(poll);
    poll = undefined;
    workspaceId = undefined;
  }

  return {
    start(id) {
      if (id === workspaceId) return;
      stop();
      workspaceId = id;
      const mine = generation;
      if (window.EventSource) follow(id, mine);
      else schedulePoll(mine);
    },
    ready: () => opened,
    stop,
  };
}
