import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { monotonicMs } from './timing.js';

/**
 * The receiver of the webhook bench: node:http on 127.0.0.1, answering 200 to every POST as soon as its
 * (small) body is in, never looking at the body. It notes when each delivery first arrived, keyed by
 * path and `X-Payment-Event-Id` (each run's endpoints have their own path), and counts repeats.
 */
export interface BenchReceiver {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Monotonic ms (shared by the processes of this machine) when `path` + `eventId` first arrived. */
  arrivedAt(path: string, eventId: string): number | undefined;
  /**
   * Distinct deliveries so far under paths starting with `prefix`, deliveries that came again, and the
   * connections open at the arrival of each request, on average: how many POSTs the sender had going
   * at once (every POST has a connection of its own).
   */
  counts(prefix: string): { readonly distinct: number; readonly duplicates: number; readonly meanOpen: number };
  /**
   * Resolves with the monotonic ms of the arrival that made `count` distinct deliveries under `prefix`;
   * rejects after `timeoutMs`.
   */
  whenDistinct(prefix: string, count: number, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

interface Waiter {
  readonly prefix: string;
  readonly count: number;
  readonly resolve: (at: number) => void;
}

export async function startBenchReceiver(): Promise<BenchReceiver> {
  const firstArrival = new Map<string, number>();
  // `arrivals`: when each distinct delivery first arrived, in order.
  const perPrefix = new Map<
    string,
    { distinct: number; duplicates: number; arrivals: number[]; openSum: number; requests: number }
  >();
  const waiters = new Set<Waiter>();
  // The prefix of a path is its first segment: `/backlog-1/3` counts under `/backlog-1`.
  const prefixOf = (path: string) => `/${path.split('/')[1] ?? ''}`;
  const tally = (prefix: string) => {
    let entry = perPrefix.get(prefix);
    if (!entry) perPrefix.set(prefix, (entry = { distinct: 0, duplicates: 0, arrivals: [], openSum: 0, requests: 0 }));
    return entry;
  };

  const server = http.createServer((request, response) => {
    const at = monotonicMs();
    const path = request.url ?? '/';
    const eventId = request.headers['x-payment-event-id'];
    request.resume();
    request.once('end', () => {
      response.writeHead(200, { 'content-length': '0' }).end();
    });
    if (request.method !== 'POST' || typeof eventId !== 'string') return;
    const key = `${path} ${eventId}`;
    const entry = tally(prefixOf(path));
    entry.openSum += open;
    entry.requests += 1;
    if (firstArrival.has(key)) {
      entry.duplicates += 1;
      return;
    }
    firstArrival.set(key, at);
    entry.distinct += 1;
    entry.arrivals.push(at);
    for (const waiter of waiters) {
      if (waiter.prefix === prefixOf(path) && entry.distinct >= waiter.count) {
        waiters.delete(waiter);
        waiter.resolve(at);
      }
    }
  });
  let open = 0;
  server.on('connection', (socket) => {
    open += 1;
    socket.once('close', () => (open -= 1));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    arrivedAt: (path, eventId) => firstArrival.get(`${path} ${eventId}`),
    counts: (prefix) => {
      const { distinct, duplicates, openSum, requests } = tally(prefix);
      return { distinct, duplicates, meanOpen: requests === 0 ? 0 : openSum / requests };
    },
    whenDistinct: (prefix, count, timeoutMs) =>
      new Promise<number>((resolve, reject) => {
        const reached = tally(prefix).arrivals[count - 1];
        if (reached !== undefined) return resolve(reached);
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `the receiver got ${tally(prefix).distinct} of ${count} deliveries under ${prefix} within ${timeoutMs / 1000} s`,
            ),
          );
        }, timeoutMs);
        const waiter: Waiter = {
          prefix,
          count,
          resolve: (at) => {
            clearTimeout(timer);
            resolve(at);
          },
        };
        waiters.add(waiter);
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
