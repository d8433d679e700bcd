import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { MAX_TIMER_MS, openEventStream, type StreamSlots } from '../../http/event-stream.js';
import type { Clock } from '../../shared/clock.js';
import type { WorkspaceId } from '../../shared/ids.js';
import type { InvoiceChange } from './invoice-changes.schemas.js';
import { isInvoiceId } from '../invoices/index.js';
import type { PaymentService } from '../payment-engine/index.js';

/** Changes heard within this long go out together, each invoice once: a payment's steps come in bursts. */
const COALESCE_MS = 100;
/** More invoices than this in one burst (the expiry job's batches) go out as one `invoices` event. */
const MAX_NAMED_PER_BURST = 100;

export interface InvoiceChangesDeps {
  readonly payments: PaymentService;
  readonly clock: Clock;
  readonly slots: StreamSlots;
}

/**
 * Streams which invoices of a workspace change, as the process's one listener hears them: an `invoice`
 * event naming each (at least once per committed change; the client reads it again through its own API,
 * so nothing of the invoice is read or sent here), and an `invoices` event when too many changed at once
 * to name, or any may have (a reconnected listener). The stream ends when the listener stops hearing
 * every change (at once if it does not hear them now: the page polls then), when the session it was
 * opened with expires, and at shutdown. A full slot is a 429 before the stream opens.
 */
export function streamInvoiceChanges(
  deps: InvoiceChangesDeps,
  reply: FastifyReply,
  ip: string,
  workspaceId: WorkspaceId,
  sessionExpiresAt: Date,
): void {
  const changed = new Set<string>();
  let anyChanged = false;
  let flushTimer: NodeJS.Timeout | undefined;
  let ended = false;
  const release = deps.slots.take(ip, () => end());

  const flush = () => {
    flushTimer = undefined;
    if (anyChanged || changed.size > MAX_NAMED_PER_BURST) stream.send('invoices', '{}');
    else
      for (const id of changed) stream.send('invoice', JSON.stringify({ id } satisfies Static<typeof InvoiceChange>));
    changed.clear();
    anyChanged = false;
  };

  // Watching starts before the stream opens, so that a client which sees it open misses no change after.
  const stopWatching = deps.payments.orderChanges.watchWorkspace(workspaceId, (event, orderId) => {
    if (event === 'deaf') return end();
    if (orderId === undefined) anyChanged = true;
    // Credit purchases are orders of the workspace too; the invoice list does not show them.
    else if (isInvoiceId(orderId)) changed.add(orderId);
    else return;
    flushTimer ??= setTimeout(flush, COALESCE_MS);
  });
  const stream = openEventStream(reply, end);
  // A stream does not outlive the session that opened it: the client's reconnect meets the sign-in check.
  const left = sessionExpiresAt.getTime() - deps.clock.now().getTime();
  const sessionTimer = setTimeout(end, Math.min(MAX_TIMER_MS, Math.max(0, left)));
  // Not hearing every change now: the page polls.
  if (!stopWatching) end();

  function end(): void {
    if (ended) return;
    ended = true;
    clearTimeout(flushTimer);
    clearTimeout(sessionTimer);
    stopWatching?.();
    release();
    stream.close();
  }
}
