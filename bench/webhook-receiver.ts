import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
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

/** One POST as the receiver saw it: when it arrived and how many connections were open then. */
interface Arrival {
  readonly path: string;
  readonly eventId: string;
  readonly at: number;
  readonly open: number;
}

/** The receiver in this process: for runs whose own process is otherwise idle while deliveries arrive. */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const book = new ArrivalBook();
  const server = await listen((arrival) => book.note(arrival));
  return book.receiver(server.origin, server.close);
}

const RECEIVER_ENTRY = fileURLToPath(new URL('./receiver-process.ts', import.meta.url));

/**
 * The receiver in a process of its own, as a merchant's server is: for runs whose own process is busy
 * meanwhile (the x402 payers sign their next payments just as the webhooks come), so that an arrival is
 * dated when it arrived, not when a busy event loop got to it. The child dates each POST and sends it
 * here; the clock is the machine's monotonic one, shared by both processes.
 */
export async function startReceiverProcess(): Promise<BenchReceiver> {
  const child = fork(RECEIVER_ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const book = new ArrivalBook();
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the receiver process exited (${code}) before it listened`)));
    child.on('message', (message: { origin: string } | Arrival) =>
      'origin' in message ? resolve(message.origin) : book.note(message),
    );
  });
  child.removeAllListeners('exit');
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return book.receiver(origin, close);
}

/** Entry of the receiver process (bench/receiver-process.ts): listens, and sends the runner each arrival. */
export async function serveReceiverProcess(): Promise<void> {
  const server = await listen((arrival) => process.send?.(arrival));
  process.send?.({ origin: server.origin });
  process.once('disconnect', () => void server.close().then(() => process.exit(0)));
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

/** node:http on 127.0.0.1, answering 200 to every POST once its (small) body is in, never reading it. */
async function listen(onArrival: (arrival: Arrival) => void): Promise<{ origin: string; close: () => Promise<void> }> {
  let open = 0;
  const server = http.createServer((request, response) => {
    const at = monotonicMs();
    const eventId = request.headers['x-payment-event-id'];
    request.resume();
    request.once('end', () => {
      response.writeHead(200, { 'content-length': '0' }).end();
    });
    if (request.method === 'POST' && typeof eventId === 'string')
      onArrival({ path: request.url ?? '/', eventId, at, open });
  });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The arrivals: when each delivery first came, per path prefix, and who waits for a count of them. */
class ArrivalBook {
  private readonly firstArrival = new Map<string, number>();
  // `arrivals`: when each distinct delivery first arrived, in order.
  private readonly perPrefix = new Map<
    string,
    { distinct: number; duplicates: number; arrivals: number[]; openSum: number; requests: number }
  >();
  private readonly waiters = new Set<Waiter>();

  note({ path, eventId, at, open }: Arrival): void {
    const key = `${path} ${eventId}`;
    const entry = this.tally(prefixOf(path));
    entry.openSum += open;
    entry.requests += 1;
    if (this.firstArrival.has(key)) {
      entry.duplicates += 1;
      return;
    }
    this.firstArrival.set(key, at);
    entry.distinct += 1;
    entry.arrivals.push(at);
    for (const waiter of this.waiters) {
      if (waiter.prefix === prefixOf(path) && entry.distinct >= waiter.count) {
        this.waiters.delete(waiter);
        waiter.resolve(at);
      }
    }
  }

  receiver(origin: string, close: () => Promise<void>): BenchReceiver {
    return {
      origin,
      arrivedAt: (path, eventId) => this.firstArrival.get(`${path} ${eventId}`),
      counts: (prefix) => {
        const { distinct, duplicates, openSum, requests } = this.tally(prefix);
        return { distinct, duplicates, meanOpen: requests === 0 ? 0 : openSum / requests };
      },
      whenDistinct: (prefix, count, timeoutMs) =>
        new Promise<number>((resolve, reject) => {
          const reached = this.tally(prefix).arrivals[count - 1];
          if (reached !== undefined) return resolve(reached);
          const timer = setTimeout(() => {
            this.waiters.delete(waiter);
            reject(
              new Error(
                `the receiver got ${this.tally(prefix).distinct} of ${count} deliveries under ${prefix} within ${timeoutMs / 1000} s`,
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
          this.waiters.add(waiter);
        }),
      close,
    };
  }

  private tally(prefix: string) {
    let entry = this.perPrefix.get(prefix);
    if (!entry)
      this.perPrefix.set(prefix, (entry = { distinct: 0, duplicates: 0, arrivals: [], openSum: 0, requests: 0 }));
    return entry;
  }
}

/** The prefix of a path is its first segment: `/backlog-1/3` counts under `/backlog-1`. */
const prefixOf = (path: string) => `/${path.split('/')[1] ?? ''}`;
