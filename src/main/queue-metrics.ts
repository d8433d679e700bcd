import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database.js';
import { jobBacklog, type JobKindBacklog } from '../jobs/index.js';
import { paymentsInFlight } from '../modules/payment-engine/index.js';
import { webhookDeliveryBacklog } from '../modules/webhooks/index.js';

/** A scrape waits this long for the database, then answers without these gauges. */
const QUERY_TIMEOUT_MS = 3_000;

/**
 * Gauges of the work waiting in the database, read when /metrics is scraped: the job queue per kind,
 * webhook deliveries pending and failed, payments in flight. They describe the whole database, so every
 * process reports the same values (aggregate them with max, never sum). Each of the three is read once
 * per scrape however many gauges show it. A read that fails or takes longer than QUERY_TIMEOUT_MS is
 * logged and its gauges are left out of that scrape (never a stale value), `queue_metrics_ok` is 0, and
 * the rest of /metrics is served as usual.
 */
export function registerQueueMetrics(registry: Registry, db: Db, log: FastifyBaseLogger): void {
  const jobs = oncePerScrape('the job queue', () => jobBacklog(db), log);
  const deliveries = oncePerScrape('webhook deliveries', () => webhookDeliveryBacklog(db), log);
  const payments = oncePerScrape('payments in flight', () => paymentsInFlight(db), log);
  // A kind once seen stays in the output, at 0 when it has nothing waiting, rather than vanishing.
  const kinds = new Set<string>();

  const perKind = (name: string, help: string, value: (row: JobKindBacklog) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['kind'] as const,
      registers: [registry],
      async collect() {
        const rows = await jobs();
        this.reset();
        if (!rows) return;
        for (const row of rows) kinds.add(row.kind);
        for (const kind of kinds) this.set({ kind }, 0);
        for (const row of rows) this.set({ kind: row.kind }, value(row));
      },
    });
  perKind('invoice_service_jobs_due', 'Jobs due to run that no worker holds, by kind', (row) => row.due);
  perKind(
    'invoice_service_jobs_due_oldest_age_seconds',
    'How long the oldest due, unclaimed job of a kind has been due (0 when none is)',
    (row) => row.oldestDueSeconds,
  );
  perKind('invoice_service_jobs_leased', 'Jobs under a live lease (running on a worker), by kind', (row) => row.leased);

  new Gauge({
    name: 'invoice_service_webhook_deliveries',
    help: 'Webhook deliveries still being retried (pending) or given up after the retry window (failed)',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const backlog = await deliveries();
      this.reset();
      if (!backlog) return;
      this.set({ status: 'pending' }, backlog.pending);
      this.set({ status: 'failed' }, backlog.failed);
    },
  });

  const fromPayments = (name: string, help: string, value: (inFlight: InFlight) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const inFlight = await payments();
        // An unknown value is left out, not shown as the 0 a gauge without labels starts at.
        if (inFlight) this.set(value(inFlight));
        else this.remove();
      },
    });
  fromPayments(
    'invoice_service_payment_intents_processing',
    'Payment intents still processing (being verified, settled or confirmed)',
    (inFlight) => inFlight.count,
  );
  fromPayments(
    'invoice_service_payment_intents_processing_oldest_age_seconds',
    'Age of the oldest payment intent still processing (0 when none is)',
    (inFlight) => inFlight.oldestSeconds,
  );

  new Gauge({
    name: 'invoice_service_queue_metrics_ok',
    help: '1 when every invoice_service_ queue gauge of this scrape was read from the database, 0 when one was not',
    registers: [registry],
    async collect() {
      const read = await Promise.all([jobs(), deliveries(), payments()]);
      this.set(read.every((result) => result !== undefined) ? 1 : 0);
    },
  });
}

type InFlight = Awaited<ReturnType<typeof paymentsInFlight>>;

/**
 * `load`, shared by every caller while one run is under way: the gauges of one scrape are collected at
 * once, so they read the database once. Resolves undefined, after logging, when the read fails or times out.
 */
function oncePerScrape<T>(what: string, load: () => Promise<T>, log: FastifyBaseLogger): () => Promise<T | undefined> {
  let current: Promise<T | undefined> | undefined;
  return () => {
    if (current) return current;
    const run = withTimeout(load(), QUERY_TIMEOUT_MS).catch((error: unknown) => {
      log.warn({ err: error }, `/metrics could not read ${what}; its gauges are left out of this scrape`);
      return undefined;
    });
    current = run;
    void run.finally(() => {
      if (current === run) current = undefined;
    });
    return run;
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the database did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
