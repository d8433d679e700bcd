import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
// The delivery runner's slots, for the legend.
import { WEBHOOK_CONCURRENCY } from '../src/main/jobs.js';
import type { WebhookBenchSettings } from './settings.js';
import { markdownTable } from './table.js';
import { startBenchReceiver, type BenchReceiver } from './webhook-receiver.js';
import { monotonicMs, percentiles } from './timing.js';
import {
  type BacklogResult,
  type CeilingResult,
  type PacedResult,
  type SetupResult,
  type StartedWorkers,
  type StoppedWorkers,
  type WebhookCommand,
  type WebhookProcessReady,
  type WebhookReply,
  type WebhookRequestMessage,
} from './webhook-protocol.js';

/** The ceiling is sent this many times; the median round is the row. */
const CEILING_ROUNDS = 5;
/**
 * POSTs the ceiling has going at once: the sender's best on this machine (5,200–5,800 POST/s at 128,
 * 4,700–4,800 at 256). The worker has more slots than this because, under a backlog, many of them wait
 * on the database rather than a receiver; the `in flight` column shows how many POSTs each row had going.
 */
const CEILING_CONCURRENCY = 128;
/** Writers of a backlog: the pool has 8 connections. */
const BACKLOG_WRITERS = 8;
/** Events sent through ceiling and workers before anything is measured (JIT, pool connections); not reported. */
const WARMUP_EVENTS = 200;
/** Every wait of a run is bounded: a delivery that never arrives fails the bench instead of hanging it. */
const PHASE_TIMEOUT_MS = 120_000;
/** How often the runner counts pending deliveries while a backlog drains. */
const POLL_MS = 10;

const ENTRY = fileURLToPath(new URL('./webhook-process.ts', import.meta.url));
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;

const HEADER = [
  'webhook run',
  'events',
  's',
  'events/s',
  'p50 ms',
  'p99 ms',
  'max ms',
  'in flight',
  'duplicates',
  'deferred',
  'errors',
  'ratio to ceiling',
];

interface Row {
  readonly name: string;
  readonly events: number;
  readonly seconds: number;
  readonly latency?: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Connections open at the receiver when each request arrived, on average (one per POST). */
  readonly inFlight: number;
  readonly duplicates: number;
  readonly deferred?: number;
  readonly errors: number;
  /** The ceiling (1) and the backlog runs: events/s over the ceiling's requests/s. */
  readonly ratio?: number;
}

type Progress = (line: string) => void;

/**
 * The webhook part of `npm run bench`: the sender's ceiling, backlogs drained by the real workers, and
 * the latency from a committed event to its arrival. Resolves the report's lines (table and legend).
 */
export async function runWebhookBench(settings: WebhookBenchSettings, progress: Progress): Promise<string[]> {
  const n = settings.events;
  progress('webhooks: starting the receiver and the worker process (fresh PostgreSQL)…');
  const receiver = await startBenchReceiver();
  let worker: WorkerProcess | undefined;
  let watcher: pg.Client | undefined;
  try {
    worker = await startWorkerProcess(receiver.origin);
    watcher = new pg.Client(worker.connection);
    await watcher.connect();
    const bench = new WebhookBench(worker, watcher, receiver, progress);

    progress(`webhooks: warming up (${WARMUP_EVENTS} requests from the sender alone, ${WARMUP_EVENTS} deliveries)…`);
    await bench.ceiling('ceiling-warmup', WARMUP_EVENTS);
    await bench.backlog('warmup', 10, WARMUP_EVENTS / 10);

    // The sender's rounds are spread over the backlog runs (two before, one between, two after), so
    // that the reference is measured around them: this machine's speed drifts over a minute.
    const rounds: Row[] = [];
    const ceilingRounds = async (count: number) => {
      progress(`webhooks: ceiling, ${count} × ${n} POSTs from postWebhook alone…`);
      for (let i = 0; i < count; i++) rounds.push(await bench.ceiling(`ceiling-${rounds.length + 1}`, n));
    };
    await ceilingRounds(2);
    const backlogs = [await bench.backlog('backlog-1', 1, n)];
    await ceilingRounds(1);
    if (settings.workspaces > 1 && Math.floor(n / settings.workspaces) > 0) {
      const perWorkspace = Math.floor(n / settings.workspaces);
      backlogs.push(await bench.backlog(`backlog-${settings.workspaces}`, settings.workspaces, perWorkspace));
    }
    await ceilingRounds(CEILING_ROUNDS - rounds.length);
    // A round lasts about a second: the median round, so one disturbed round does not move every ratio.
    const ceiling = rounds.sort((a, b) => a.seconds - b.seconds)[Math.floor(CEILING_ROUNDS / 2)]!;
    const ceilingRate = ceiling.events / ceiling.seconds;
    const withRatio = (row: Row): Row => ({ ...row, ratio: row.events / row.seconds / ceilingRate });
    const rows: Row[] = [{ ...ceiling, ratio: 1 }, ...backlogs.map(withRatio)];
    if (settings.latencySeconds > 0) rows.push(await bench.latency(settings.ratePerSecond, settings.latencySeconds));

    return [
      `webhooks: ${n} events per backlog run; sender ceiling at ${CEILING_CONCURRENCY} requests at once, worker with ${WEBHOOK_CONCURRENCY} delivery slots; receiver node:http on 127.0.0.1 answering 200`,
      '',
      markdownTable(HEADER, rows.map(cells)),
      '',
      `- ceiling: \`postWebhook\` (fresh connection, signed headers, the SSRF checks) straight to the receiver, ${CEILING_CONCURRENCY} at a time, nothing else: requests/s, the median of ${CEILING_ROUNDS} rounds (two before the backlogs, one between them, two after); p50/p99/max: each POST's duration`,
      '- in flight: connections open at the receiver when each request arrived, on average; every POST opens its own, so this is how many POSTs the sender had going at once',
      '- backlog: the events written first (the event writer `append`, one transaction each) with no worker running; then `createWorkers` started and timed until every delivery is `succeeded` in the database and the receiver has had every event id',
      '- latency: workers running; one event per transaction at a steady rate; from the return of COMMIT to the arrival at the receiver (one monotonic clock for both processes)',
      '- deferred: delivery job runs that sent nothing (the claim leaves the jobs of a workspace with DELIVERIES_PER_WORKSPACE running unclaimed, so none is expected)',
      '- errors: failed POSTs (ceiling) or failed attempts and deliveries not succeeded (workers)',
    ];
  } finally {
    await watcher?.end().catch(() => {});
    await worker?.stop();
    await receiver.close();
  }
}

function cells(row: Row): string[] {
  const ms = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(1));
  return [
    row.name,
    row.events.toString(),
    row.seconds.toFixed(2),
    Math.round(row.events / row.seconds).toString(),
    ms(row.latency?.p50),
    ms(row.latency?.p99),
    ms(row.latency?.max),
    row.inFlight.toFixed(0),
    row.duplicates.toString(),
    row.deferred === undefined ? '–' : row.deferred.toString(),
    row.errors.toString(),
    row.ratio === undefined ? '–' : row.ratio.toFixed(3),
  ];
}

class WebhookBench {
  constructor(
    private readonly worker: WorkerProcess,
    private readonly watcher: pg.Client,
    private readonly receiver: BenchReceiver,
    private readonly progress: Progress,
  ) {}

  async ceiling(label: string, count: number): Promise<Row> {
    const result = await this.worker.call<CeilingResult>({
      type: 'ceiling',
      path: `/${label}/0`,
      count,
      concurrency: CEILING_CONCURRENCY,
    });
    const { distinct, duplicates, meanOpen } = this.receiver.counts(`/${label}`);
    return {
      name: `ceiling: postWebhook ×${CEILING_CONCURRENCY} → receiver`,
      events: count,
      seconds: (result.finishedAt - result.startedAt) / 1000,
      latency: percentiles(result.durationsMs),
      inFlight: meanOpen,
      duplicates,
      errors: result.failed + (count - distinct),
    };
  }

  /** `perWorkspace` events in each of `workspaces` fresh workspaces, written first, then drained by fresh workers. */
  async backlog(label: string, workspaces: number, perWorkspace: number): Promise<Row> {
    const total = workspaces * perWorkspace;
    const { workspaceIds } = await this.worker.call<SetupResult>({ type: 'setup', label, workspaces });
    this.progress(`webhooks: ${label}: writing ${total} events in ${workspaces} workspace(s), no worker running…`);
    const written = await this.worker.call<BacklogResult>({
      type: 'backlog',
      workspaceIds,
      perWorkspace,
      writers: BACKLOG_WRITERS,
    });
    this.progress(
      `webhooks: ${label}: written in ${(written.ms / 1000).toFixed(1)} s; starting the workers and timing the delivery…`,
    );
    const prefix = `/${label}`;
    const [{ startedAt }, receivedAt] = await Promise.all([
      this.worker.call<StartedWorkers>({ type: 'startWorkers' }),
      this.receiver.whenDistinct(prefix, total, PHASE_TIMEOUT_MS),
    ]);
    // Asked once the receiver has every event, so that the count does not load the database meanwhile.
    const succeededAt = await this.noneLeftPending(workspaceIds);
    const { handlerRuns } = await this.worker.call<StoppedWorkers>({ type: 'stopWorkers' });
    const stats = await this.deliveryStats(workspaceIds);
    const received = this.receiver.counts(prefix);
    return {
      name: `backlog: ${workspaces} workspace${workspaces === 1 ? '' : 's'} × ${perWorkspace}`,
      events: total,
      seconds: (Math.max(receivedAt, succeededAt) - startedAt) / 1000,
      inFlight: received.meanOpen,
      duplicates: received.duplicates,
      deferred: handlerRuns - stats.attempts,
      errors: stats.failedAttempts + (total - stats.succeeded),
    };
  }

  /** One workspace, workers running, `ratePerSecond` events for `seconds`, each timed from COMMIT to arrival. */
  async latency(ratePerSecond: number, seconds: number): Promise<Row> {
    const label = 'latency';
    const count = ratePerSecond * seconds;
    const { workspaceIds } = await this.worker.call<SetupResult>({ type: 'setup', label, workspaces: 1 });
    await this.worker.call<StartedWorkers>({ type: 'startWorkers' });
    this.progress(
      `webhooks: latency: ${ratePerSecond} events/s for ${seconds} s, one transaction each, workers running…`,
    );
    const { commits } = await this.worker.call<PacedResult>({
      type: 'paced',
      workspaceId: workspaceIds[0]!,
      ratePerSecond,
      count,
    });
    await this.receiver.whenDistinct(`/${label}`, count, PHASE_TIMEOUT_MS);
    await this.noneLeftPending(workspaceIds);
    const { handlerRuns } = await this.worker.call<StoppedWorkers>({ type: 'stopWorkers' });
    const stats = await this.deliveryStats(workspaceIds);
    const received = this.receiver.counts(`/${label}`);
    const latencies = commits.map(
      ([eventId, committedAt]) => this.receiver.arrivedAt(`/${label}/0`, eventId)! - committedAt,
    );
    return {
      name: `latency: ${ratePerSecond}/s, COMMIT → received`,
      events: count,
      seconds: (commits.at(-1)![1] - commits[0]![1]) / 1000 + 1 / ratePerSecond,
      latency: percentiles(latencies),
      inFlight: received.meanOpen,
      duplicates: received.duplicates,
      deferred: handlerRuns - stats.attempts,
      errors: stats.failedAttempts + (count - stats.succeeded),
    };
  }

  /** Resolves when (the answer came that) no delivery of these workspaces is pending any more. */
  private async noneLeftPending(workspaceIds: readonly string[]): Promise<number> {
    const deadline = monotonicMs() + PHASE_TIMEOUT_MS;
    for (;;) {
      const { rows } = await this.watcher.query<{ pending: number }>(
        `SELECT count(*)::int AS pending FROM webhook_deliveries WHERE workspace_id = ANY($1) AND status = 'pending'`,
        [workspaceIds],
      );
      const at = monotonicMs();
      if (rows[0]!.pending === 0) return at;
      if (at > deadline)
        throw new Error(`${rows[0]!.pending} webhook deliveries still pending after ${PHASE_TIMEOUT_MS / 1000} s`);
      await sleep(POLL_MS);
    }
  }

  private async deliveryStats(workspaceIds: readonly string[]) {
    const { rows } = await this.watcher.query<{ succeeded: number; attempts: number; failed_attempts: number }>(
      `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = ANY($1) AND status = 'succeeded') AS succeeded,
              count(*)::int AS attempts,
              (count(*) FILTER (WHERE error IS NOT NULL))::int AS failed_attempts
         FROM webhook_attempts WHERE workspace_id = ANY($1)`,
      [workspaceIds],
    );
    const row = rows[0]!;
    return { succeeded: row.succeeded, attempts: row.attempts, failedAttempts: row.failed_attempts };
  }
}

interface WorkerProcess {
  readonly connection: pg.ClientConfig;
  call<T>(command: WebhookCommand): Promise<T>;
  /** Asks the process to stop (workers, PostgreSQL, temp data) and waits for it. */
  stop(): Promise<void>;
}

/** The real services and workers in their own process: the receiver never shares their event loop. */
async function startWorkerProcess(receiverOrigin: string): Promise<WorkerProcess> {
  const child = fork(ENTRY, [receiverOrigin], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 0;

  const ready = await new Promise<WebhookProcessReady>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`webhook bench: worker process not ready within ${READY_TIMEOUT_MS / 1000} s`));
    }, READY_TIMEOUT_MS);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as WebhookProcessReady);
    });
    child.once('error', reject);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`webhook bench: worker process exited with code ${code} before it was ready`));
    });
  });

  child.on('message', (message: WebhookReply) => {
    const waiting = pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.ok) waiting.resolve(message.result);
    else waiting.reject(new Error(`webhook bench worker: ${message.error}`));
  });
  void exited.then((code) => {
    for (const waiting of pending.values())
      waiting.reject(new Error(`webhook bench: worker process exited with code ${code}`));
    pending.clear();
  });

  return {
    connection: ready.connection,
    call: <T>(command: WebhookCommand) =>
      new Promise<T>((resolve, reject) => {
        if (!child.connected) return reject(new Error('webhook bench: the worker process is gone'));
        const id = nextId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`webhook bench: "${command.type}" took longer than ${PHASE_TIMEOUT_MS / 1000} s`));
        }, PHASE_TIMEOUT_MS);
        pending.set(id, {
          resolve: (value) => {
            clearTimeout(timer);
            resolve(value as T);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        const message: WebhookRequestMessage = { id, command };
        child.send(message);
      }),
    stop: async () => {
      if (child.connected) child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
