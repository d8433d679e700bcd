import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Resolver } from '../webhook-endpoint/index.js';
import { postWebhook, type WebhookRequest } from './webhook-http.js';
import type { AttemptOutcome } from './webhook.js';

/** One POST attempt of a delivery. Never rejects (see postWebhook); aborting `signal` ends it as a timeout. */
export type SendWebhook = (request: WebhookRequest, signal?: AbortSignal) => Promise<AttemptOutcome>;

/** postWebhook on the caller's thread: for a custom resolver, which cannot cross to another thread. */
export function inlineSender(options: { readonly allowPrivate: boolean; readonly resolve?: Resolver }): SendWebhook {
  return (request, signal) =>
    postWebhook(request, {
      allowPrivate: options.allowPrivate,
      ...(options.resolve && { resolve: options.resolve }),
      ...(signal && { signal }),
    });
}

/** What the sending thread is started with. */
export interface SenderThreadData {
  readonly allowPrivate: boolean;
}
/** To the sending thread, in batches. */
export type SenderMessage =
  | { readonly type: 'send'; readonly id: number; readonly request: WebhookRequest }
  | { readonly type: 'abort'; readonly id: number };
/** From the sending thread, in batches. */
export interface SenderReply {
  readonly id: number;
  readonly outcome: AttemptOutcome;
}

interface InFlight {
  readonly worker: Worker;
  readonly startedAt: number;
  readonly resolve: (outcome: AttemptOutcome) => void;
}

/**
 * postWebhook on a thread of its own, started at the first send. A POST costs the CPU of a fresh
 * connection; on the thread that also claims jobs and records results, the two took turns on one core.
 * Here the delivery runner's thread keeps the database work and the sending thread only sends
 * (docs/performance.md, "Webhook delivery on two threads"). Requests and outcomes cross in batches, one message per
 * turn of either event loop.
 *
 * If the thread dies, the attempts in flight end as `network_error` (their deliveries are retried:
 * at least once) and the next send starts a new thread.
 */
export class SenderThread {
  private worker: Worker | undefined;
  private nextId = 0;
  private outbox: SenderMessage[] = [];
  private readonly inFlight = new Map<number, InFlight>();

  constructor(private readonly options: SenderThreadData) {}

  readonly send: SendWebhook = (request, signal) =>
    new Promise((resolve) => {
      const worker = this.thread();
      const id = this.nextId++;
      // Referenced while it has work: a process waiting on nothing but an attempt stays up for its outcome.
      if (this.inFlight.size === 0) worker.ref();
      this.inFlight.set(id, { worker, startedAt: performance.now(), resolve });
      this.post({ type: 'send', id, request });
      const abort = () => this.inFlight.has(id) && this.post({ type: 'abort', id });
      if (signal?.aborted) abort();
      else signal?.addEventListener('abort', abort, { once: true });
    });

  /**
   * Stops the thread; attempts in flight, and those not handed over yet, end as `network_error`. A later
   * send starts a new one.
   */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.outbox = [];
    this.worker = undefined;
    await worker.terminate();
    this.lost(worker);
  }

  private post(message: SenderMessage): void {
    if (this.outbox.push(message) === 1) queueMicrotask(() => this.flush());
  }

  private flush(): void {
    if (this.outbox.length === 0) return;
    const batch = this.outbox;
    this.outbox = [];
    this.worker?.postMessage(batch);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const { entry, evaluated } = threadEntry();
    const worker = new Worker(entry, { eval: evaluated, workerData: this.options });
    worker.unref();
    worker.on('message', (replies: SenderReply[]) => {
      for (const { id, outcome } of replies) this.settle(id, outcome);
    });
    // 'error' is followed by 'exit'.
    worker.on('error', () => {});
    worker.on('exit', () => this.lost(worker));
    this.worker = worker;
    return worker;
  }

  private settle(id: number, outcome: AttemptOutcome): void {
    const attempt = this.inFlight.get(id);
    if (!attempt) return;
    this.inFlight.delete(id);
    attempt.resolve(outcome);
    if (this.inFlight.size === 0) this.worker?.unref();
  }

  private lost(worker: Worker): void {
    if (this.worker === worker) this.worker = undefined;
    for (const [id, attempt] of this.inFlight)
      if (attempt.worker === worker)
        this.settle(id, { ok: false, error: 'network_error', durationMs: performance.now() - attempt.startedAt });
  }
}

const extension = path.extname(fileURLToPath(import.meta.url));
const ENTRY = new URL(`./webhook-sender.thread${extension}`, import.meta.url);

/**
 * Run from TypeScript source (tsx), a worker thread does not inherit the loader on Node 20 whatever its
 * execArgv, so the thread registers it before importing its entry.
 */
function threadEntry(): { readonly entry: URL | string; readonly evaluated: boolean } {
  if (extension !== '.ts') return { entry: ENTRY, evaluated: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  return {
    entry: `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(ENTRY.href)}); });`,
    evaluated: true,
  };
}
