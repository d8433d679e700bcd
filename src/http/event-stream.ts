import { PassThrough } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { AppError } from '../shared/errors.js';

/** A comment line this often keeps proxies and load balancers from closing an idle stream. */
export const HEARTBEAT_MS = 15_000;
/** The longest a stream's timer may wait (setTimeout's limit): a deadline or session end further off waits this long. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** How long an EventSource waits before it reconnects after the stream ends or breaks. */
export const RETRY_MS = 3_000;

/**
 * Bounds the server-sent event streams held open, per client address and in all: each holds a socket
 * and a watcher for as long as the client stays. Per process, as the connection limit is.
 */
export class StreamSlots {
  private readonly perIp = new Map<string, number>();
  private total = 0;
  /** How to end each open stream, for a shutdown that must not wait for clients to leave. */
  private readonly enders = new Set<() => void>();

  constructor(
    private readonly maxPerIp: number,
    private readonly maxTotal: number,
  ) {}

  /**
   * Takes a slot for `ip` or throws 429 rate_limited; `end` ends the stream (endAll). The returned release
   * may be called any number of times.
   */
  take(ip: string, end: () => void): () => void {
    const held = this.perIp.get(ip) ?? 0;
    if (held >= this.maxPerIp || this.total >= this.maxTotal)
      throw new AppError(
        'rate_limited',
        held >= this.maxPerIp
          ? 'Too many open event streams from this address. Close one, or poll the payment details.'
          : 'Too many open event streams. Retry after the delay in Retry-After, or poll the payment details.',
        { retryAfterSeconds: RETRY_MS / 1000 },
      );
    this.perIp.set(ip, held + 1);
    this.total += 1;
    this.enders.add(end);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.enders.delete(end);
      this.total -= 1;
      const left = (this.perIp.get(ip) ?? 1) - 1;
      if (left > 0) this.perIp.set(ip, left);
      else this.perIp.delete(ip);
    };
  }

  /** Ends every open stream: on shutdown, which would otherwise wait for each client to leave. */
  endAll(): void {
    for (const end of [...this.enders]) end();
  }
}

export interface EventStream {
  /** Sends one event whose data is `json` (one line); nothing once closed. */
  send(event: string, json: string): void;
  /** Ends the stream (the client's EventSource reconnects after RETRY_MS unless it closes itself). */
  close(): void;
  readonly closed: boolean;
}

/**
 * Answers the request with a `text/event-stream` that stays open until `close()` or until the client
 * goes away; `onClose` runs once either way. The headers set by hooks (request id, rate limit) are kept.
 */
export function openEventStream(reply: FastifyReply, onClose: () => void): EventStream {
  const body = new PassThrough();
  let closed = false;
  const heartbeat = setInterval(() => body.write(': heartbeat\n\n'), HEARTBEAT_MS);
  const finish = () => {
    if (closed) return;
    closed = true;
    clearInterval(heartbeat);
    body.end();
    onClose();
  };
  // A client gone while its request was checked closed its connection before anyone could listen:
  // end at once (on the next turn, once the caller holds the stream) rather than keep its slot forever.
  if (reply.raw.destroyed) setImmediate(finish);
  else reply.raw.once('close', finish);
  body.write(`retry: ${RETRY_MS}\n\n`);
  void reply
    .code(200)
    .header('Content-Type', 'text/event-stream; charset=utf-8')
    .header('Cache-Control', 'no-store')
    // Tells nginx not to buffer the stream.
    .header('X-Accel-Buffering', 'no')
    .send(body);
  return {
    send(event, json) {
      if (!closed) body.write(`event: ${event}\ndata: ${json}\n\n`);
    },
    close: finish,
    get closed() {
      return closed;
    },
  };
}
