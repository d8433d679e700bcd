import type { FastifyReply } from 'fastify';
import { MAX_TIMER_MS, openEventStream, type EventStream, type StreamSlots } from '../../http/event-stream.js';
import type { Clock } from '../../shared/clock.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceId } from '../invoices/index.js';
import type { CheckoutService } from './checkout.service.js';
import { CheckoutView } from './checkout.schemas.js';
import type { PaymentService } from '../payment-engine/index.js';

/** After these the invoice's public state no longer changes by itself: the stream ends. */
const FINAL_STATUSES: ReadonlySet<string> = new Set(['paid', 'expired', 'cancelled']);

export interface InvoiceEventsDeps {
  readonly checkout: CheckoutService;
  readonly payments: PaymentService;
  readonly clock: Clock;
  readonly slots: StreamSlots;
}

/**
 * Streams an invoice's public payment details: one `state` event at once, one after every committed
 * change of the invoice (heard through the process's one listener; the details are read again, never
 * taken from the notification), and at its deadline; the stream ends at a final status. An unknown
 * invoice is a 404 and a full slot a 429, both before the stream opens; while the listener does not hear
 * every change the stream ends after its first event, and the page polls.
 */
export async function streamInvoiceState(
  deps: InvoiceEventsDeps,
  reply: FastifyReply,
  ip: string,
  workspaceId: WorkspaceId,
  invoiceId: InvoiceId,
): Promise<void> {
  let stream: EventStream | undefined;
  let stopWatching: (() => void) | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let reading = true;
  let readAgain = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    clearTimeout(deadline);
    stopWatching?.();
    release();
    stream?.close();
  };
  const release = deps.slots.take(ip, () => end());
  const push = (details: Awaited<ReturnType<CheckoutService['details']>>) => {
    // The response schema is the whitelist of what leaves the server, here as on the JSON route.
    stream?.send('state', reply.serializeInput(details, CheckoutView));
    if (FINAL_STATUSES.has(details.status)) return end();
    // Expiry is a matter of time, not of a change: read again when the deadline passes.
    clearTimeout(deadline);
    const wait = Date.parse(details.expiresAt) - deps.clock.now().getTime() + 1000;
    deadline = setTimeout(() => void refresh(), Math.min(MAX_TIMER_MS, Math.max(1000, wait)));
  };
  /** Reads and sends the details; a change heard during a read makes one more read after it. */
  const refresh = async () => {
    if (reading) return void (readAgain = true);
    reading = true;
    try {
      do {
        readAgain = false;
        const details = await deps.checkout.details(workspaceId, invoiceId);
        if (stream?.closed) return;
        push(details);
      } while (readAgain && !stream?.closed);
    } catch {
      end(); // the page reconnects and, failing that, polls
    } finally {
      reading = false;
    }
  };

  try {
    // Watching starts before the first read, so that no change falls between the two.
    stopWatching = deps.payments.orderChanges.watchOrder(workspaceId, invoiceId, (event) =>
      event === 'deaf' ? end() : void refresh(),
    );
    const first = await deps.checkout.details(workspaceId, invoiceId);
    stream = openEventStream(reply, end);
    push(first);
    // Changes are not heard now (the listener is reconnecting, or behind a transaction pooler): the state
    // as it is, and the end, after which the page polls.
    if (!stopWatching) end();
  } catch (error) {
    end();
    throw error;
  } finally {
    reading = false;
  }
  if (readAgain && stream?.closed === false) await refresh();
}
