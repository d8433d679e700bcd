import { afterAll, expect, it } from 'vitest';
import { createWorkers } from '../../src/main/jobs.js';
import { DELIVERIES_PER_WORKSPACE, DELIVER_WEBHOOK_JOB } from '../../src/modules/webhooks/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { waitFor } from '../jobs/support.js';
import { createTestApp } from '../support/app.js';
import { startTestReceiver } from '../support/webhook-receiver.js';
import { webhookShop } from '../support/webhooks.js';

const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock);
const workers = createWorkers(testApp.services, testApp.database.connection);
await workers.start();
afterAll(() => workers.stop());

it(
  "a workspace whose receiver hangs holds a few delivery slots, not the other workspaces' deliveries",
  { timeout: 30_000 },
  async () => {
    const hanging = await startTestReceiver(() => 'hang');
    const stuck = await webhookShop(testApp);
    await stuck.configure(hanging.url);
    const events = DELIVERIES_PER_WORKSPACE + 4;
    for (let i = 0; i < events; i++) await stuck.emitPaymentEvent();
    // The per-workspace limit: DELIVERIES_PER_WORKSPACE attempts of one workspace at once in a process.
    await waitFor(
      () => (hanging.received.length >= DELIVERIES_PER_WORKSPACE ? true : undefined),
      10_000,
      'the stuck workspace to fill its slots',
    );

    const healthy = await startTestReceiver();
    const shop = await webhookShop(testApp);
    await shop.configure(healthy.url);
    const eventId = await shop.emitPaymentEvent();
    await waitFor(() => (healthy.received.length === 1 ? true : undefined), 7_000, "the other workspace's delivery");

    expect(healthy.received[0]!.eventId).toBe(eventId);
    // Delivered while every one of the stuck workspace's attempts was still waiting for an answer.
    const finished = await testApp.database.db
      .selectFrom('webhook_attempts')
      .select('id')
      .where('workspace_id', '=', stuck.workspaceId)
      .execute();
    expect(finished).toHaveLength(0);
    expect(hanging.received).toHaveLength(DELIVERIES_PER_WORKSPACE);
    // The stuck workspace's other deliveries wait unclaimed: no job run is spent on looking at them.
    const waiting = await testApp.database.db
      .selectFrom('jobs')
      .select('attempts')
      .where('kind', '=', DELIVER_WEBHOOK_JOB)
      .where('workspace_id', '=', stuck.workspaceId)
      .where('locked_by', 'is', null)
      .execute();
    expect(waiting).toHaveLength(events - DELIVERIES_PER_WORKSPACE);
    expect(waiting.every((job) => job.attempts === 0)).toBe(true);
  },
);
