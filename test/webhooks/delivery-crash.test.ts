import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { waitFor } from '../jobs/support.js';
import { createTestApp } from '../support/app.js';
import { signatureValid, startTestReceiver } from '../support/webhook-receiver.js';
import { startWorker, webhookShop } from '../support/webhooks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKER = fileURLToPath(new URL('./fixtures/delivery-worker.ts', import.meta.url));
const KILLS = 20;

const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1' }, systemClock);

/** Starts the worker process and resolves once it is claiming jobs. */
async function spawnWorker() {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER], {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_TEST_CONNECTION: JSON.stringify(testApp.database.connection) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('worker ready') && resolve());
    void exited.then(() => reject(new Error('the worker exited before it was ready')));
  });
  return { kill: async () => (child.kill('SIGKILL'), exited) };
}

it(
  `delivers every event at least once, duplicates only with the same id, across ${KILLS} worker kills mid-delivery`,
  { timeout: 180_000 },
  async () => {
    // Slow answers keep deliveries in flight, so most kills land in the middle of one.
    const receiver = await startTestReceiver(() => ({ status: 200, delayMs: 150 }));
    const shop = await webhookShop(testApp);
    const secret = await shop.configure(receiver.url);

    const emitted: string[] = [];
    let streaming = true;
    const stream = (async () => {
      while (streaming) {
        emitted.push(await shop.emitPaymentEvent());
        await delay(40);
      }
    })();

    for (let kill = 0; kill < KILLS; kill++) {
      const worker = await spawnWorker();
      await delay(400 + Math.random() * 600);
      await worker.kill();
    }
    streaming = false;
    await stream;

    // A survivor takes over the killed workers' jobs once their leases run out.
    await startWorker(testApp);
    await waitFor(
      async () => {
        const pending = await testApp.database.db
          .selectFrom('webhook_deliveries')
          .select('event_id')
          .where('workspace_id', '=', shop.workspaceId)
          .where('status', '!=', 'succeeded')
          .execute();
        return pending.length === 0 ? true : undefined;
      },
      60_000,
      'every delivery to succeed',
    );

    const receivedIds = receiver.received.map((request) => request.eventId);
    expect(new Set(receivedIds)).toEqual(new Set(emitted));
    expect(receiver.received.every((request) => signatureValid(request, secret))).toBe(true);
    // Each duplicate carries the same body as the first copy of its id.
    const bodies = new Map<string, string>();
    for (const request of receiver.received) {
      expect(bodies.get(request.eventId) ?? request.body).toBe(request.body);
      bodies.set(request.eventId, request.body);
    }
    expect(receiver.interrupted()).toBeGreaterThan(0);
    console.log(
      `${emitted.length} events, ${receiver.received.length} requests, ${receiver.received.length - emitted.length} duplicates, ${receiver.interrupted()} interrupted by kills`,
    );
  },
);
