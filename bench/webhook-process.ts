import { setTimeout as sleep } from 'node:timers/promises';
import { createWorkers, type Workers } from '../src/main/jobs.js';
import { append, type NewEvent } from '../src/modules/events/index.js';
import { newSigningSecret } from '../src/modules/webhook-endpoint/webhook-endpoint.js';
import { signedHeaders, webhookBody } from '../src/modules/webhooks/webhook.js';
import { postWebhook } from '../src/modules/webhooks/webhook-http.js';
import { walletAddress, type WorkspaceId } from '../src/shared/ids.js';
import { startRealServices, stderrJobLogger, type RealServices } from './real-app.js';
import { monotonicMs } from './timing.js';
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

/**
 * Entry of the webhook bench's worker process (forked by bench/webhooks.ts with the receiver's origin):
 * the real services (no HTTP app) on a fresh embedded PostgreSQL with WEBHOOK_ALLOW_PRIVATE=true, and the real job
 * runners when told. It does what the runner asks, one command at a time, and stops (PostgreSQL stopped,
 * temp data deleted) when the runner says so or goes away.
 */
async function main(): Promise<void> {
  const receiver = new URL(process.argv[2] ?? '');
  if (receiver.protocol !== 'http:' || receiver.hostname !== '127.0.0.1')
    throw new Error(`refusing to send webhooks to ${receiver.href}: loopback only`);

  let real: RealServices | undefined = undefined;
  let workers: Workers | undefined;
  let exitCode: number | undefined;
  let stopping = false;
  // As in bench/server.ts: stopping during preparation only takes note, and stops once it is ready.
  const stop = async (code: number) => {
    exitCode ??= code;
    if (!real || stopping) return;
    stopping = true;
    await workers?.stop();
    await real.stop();
    process.exit(exitCode);
  };
  process.once('disconnect', () => void stop(1));
  process.once('SIGINT', () => void stop(1));
  process.once('SIGTERM', () => void stop(1));
  process.on('uncaughtException', (error) => {
    console.error(`bench webhook process: ${error.message}`);
    void stop(1);
  });

  real = await startRealServices({
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // Every workspace of a run belongs to one wallet: the warm-up's 10, the backlogs' 1 and up to 50, the latency run's 1.
    MAX_WORKSPACES_PER_WALLET: '100',
  });
  if (exitCode !== undefined) return stop(exitCode);
  const { services } = real;

  // Counts the delivery job's runs; a run that sends nothing (e.g. a paused endpoint) shows as a run
  // without an attempt row.
  let handlerRuns = 0;
  const deliverer = services.webhookDeliverer;
  const attempt = deliverer.attempt.bind(deliverer);
  deliverer.attempt = (...args) => {
    handlerRuns += 1;
    return attempt(...args);
  };

  const run = async (command: WebhookCommand): Promise<unknown> => {
    switch (command.type) {
      case 'setup': {
        const workspaceIds: string[] = [];
        for (let index = 0; index < command.workspaces; index++) {
          const workspace = await services.workspaces.create(
            walletAddress(`0x${'be'.repeat(20)}`),
            { name: `Bench ${command.label} ${index}` },
            undefined,
          );
          await services.webhookEndpoint.configure(workspace.id, {
            endpoint: `${receiver.origin}/${command.label}/${index}`,
            enabled: true,
          });
          workspaceIds.push(workspace.id);
        }
        return { workspaceIds } satisfies SetupResult;
      }
      case 'ceiling':
        return ceiling(`${receiver.origin}${command.path}`, command.count, command.concurrency);
      case 'backlog': {
        const started = monotonicMs();
        // Interleaved across workspaces, so that writers of different workspaces do not queue on one row lock.
        const queue: WorkspaceId[] = [];
        for (let i = 0; i < command.perWorkspace; i++)
          for (const id of command.workspaceIds) queue.push(id as WorkspaceId);
        let next = 0;
        const writer = async () => {
          while (next < queue.length) {
            const workspaceId = queue[next++]!;
            await services.db.transaction().execute((trx) => append(trx, workspaceId, paymentSucceeded(next)));
          }
        };
        await Promise.all(Array.from({ length: command.writers }, writer));
        return { events: queue.length, ms: monotonicMs() - started } satisfies BacklogResult;
      }
      case 'startWorkers': {
        if (workers) throw new Error('workers are already running');
        handlerRuns = 0;
        workers = createWorkers(services, real!.connection, stderrLogger);
        const startedAt = monotonicMs();
        await workers.start();
        return { startedAt } satisfies StartedWorkers;
      }
      case 'stopWorkers': {
        await workers?.stop();
        workers = undefined;
        return { handlerRuns } satisfies StoppedWorkers;
      }
      case 'paced': {
        const commits: [string, number][] = [];
        const intervalMs = 1000 / command.ratePerSecond;
        const start = monotonicMs();
        for (let i = 0; i < command.count; i++) {
          // A fixed schedule: a slow write delays the next one, never the ones after it.
          const wait = start + i * intervalMs - monotonicMs();
          if (wait > 0) await sleep(wait);
          const id = await services.db
            .transaction()
            .execute((trx) => append(trx, command.workspaceId as WorkspaceId, paymentSucceeded(i)));
          commits.push([id.toString(), monotonicMs()]);
        }
        return { commits } satisfies PacedResult;
      }
    }
  };

  // One command at a time, in order: the runner waits for each answer anyway.
  let chain = Promise.resolve();
  process.on('message', (message: WebhookRequestMessage | 'stop') => {
    if (message === 'stop') return void stop(0);
    chain = chain.then(async () => {
      let reply: WebhookReply;
      try {
        reply = { id: message.id, ok: true, result: await run(message.command) };
      } catch (error) {
        reply = {
          id: message.id,
          ok: false,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        };
      }
      process.send?.(reply);
    });
  });
  const ready: WebhookProcessReady = {
    type: 'ready',
    connection: {
      host: real.connection.host,
      port: real.connection.port,
      user: real.connection.user,
      database: real.connection.database,
    },
  };
  process.send?.(ready);
}

/** `postWebhook` with signed headers, as the deliverer sends, `concurrency` requests at a time. */
async function ceiling(url: string, count: number, concurrency: number): Promise<CeilingResult> {
  const secret = newSigningSecret();
  const workspaceId = 'ws_benchceiling';
  const durationsMs: number[] = [];
  let ok = 0;
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const eventId = String(++next);
      const event = paymentSucceeded(next);
      const body = webhookBody(workspaceId, { id: eventId, type: event.type, at: event.at, data: event.data });
      const raw = JSON.stringify(body);
      const outcome = await postWebhook(
        { url, headers: signedHeaders(secret, eventId, raw, new Date()), body: raw },
        { allowPrivate: true },
      );
      durationsMs.push(outcome.durationMs);
      if (outcome.ok) ok += 1;
    }
  };
  const startedAt = monotonicMs();
  await Promise.all(Array.from({ length: concurrency }, sender));
  return { startedAt, finishedAt: monotonicMs(), ok, failed: count - ok, durationsMs };
}

/** A `payment_intent.succeeded` shaped as the payment service records it (webhook body ~ 900 bytes). */
function paymentSucceeded(n: number): Extract<NewEvent, { type: 'payment_intent.succeeded' }> {
  const at = new Date();
  const invoiceId = `inv_bench${n.toString().padStart(17, '0')}`;
  const intentId = `pi_bench${n.toString().padStart(18, '0')}`;
  const number = `INV-${n.toString().padStart(6, '0')}`;
  return {
    type: 'payment_intent.succeeded' as const,
    invoiceId,
    paymentIntentId: intentId,
    data: {
      paymentIntent: {
        id: intentId,
        status: 'succeeded',
        failureReason: null,
        invoiceId,
        invoiceNumber: number,
        externalId: null,
        method: 'transaction',
        network: 'base',
        amount: '25.000000',
        currency: 'USDC',
        recipient: `0x${'be'.repeat(20)}`,
        payer: `0x${'a1'.repeat(20)}`,
        transactionHash: `0x${'7e'.repeat(32)}`,
        blockNumber: '31415926',
        submittedAt: at.toISOString(),
        finishedAt: at.toISOString(),
      },
      invoice: { id: invoiceId, number, externalId: null },
    },
    at,
  };
}

const stderrLogger = stderrJobLogger('bench webhook worker');

main().catch((error: unknown) => {
  console.error(
    `bench webhook process failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
