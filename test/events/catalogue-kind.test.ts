import { expect, it } from 'vitest';
import { defineEventKind } from '../../src/modules/events/event.js';
import { append } from '../../src/modules/events/index.js';
import { systemClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { waitFor } from '../jobs/support.js';
import { createTestApp } from '../support/app.js';
import { signatureValid, startTestReceiver } from '../support/webhook-receiver.js';
import { startWorker, webhookShop } from '../support/webhooks.js';

// A kind that exists only in this test: its data type by declaration merging, its rules at run time.
declare module '../../src/modules/events/event.js' {
  interface EventDataByKind {
    'test.pinged': { readonly ping: number; readonly note: string };
  }
}
defineEventKind('test.pinged', { subject: 'invoice', webhook: true, timeline: null, when: 'only in this test' });

const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock);
await startWorker(testApp);

it('a kind added to the catalogue reaches the change feed and, signed, the webhook receiver through the one writer', async () => {
  const shop = await webhookShop(testApp);
  const receiver = await startTestReceiver();
  const secret = await shop.configure(receiver.url);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const { invoice } = await testApp.services.invoices.create(
    workspaceId,
    { amount: '2' },
    { idempotencyKey: 'catalogue-kind', source: 'api' },
  );
  const invoiceId = invoice.id;

  const at = new Date();
  const id = await testApp.database.db
    .transaction()
    .execute((trx) =>
      append(trx, workspaceId, { type: 'test.pinged', invoiceId, data: { ping: 7, note: 'hello' }, at }),
    );

  const feed = await shop.api('GET', `/changes?after=${id - 1n}`);
  expect(feed.status).toBe(200);
  expect((feed.body as { events: unknown[] }).events).toEqual([
    {
      id: id.toString(),
      type: 'test.pinged',
      createdAt: at.toISOString(),
      invoiceId,
      data: { ping: 7, note: 'hello' },
    },
  ]);

  const request = await waitFor(
    () => receiver.received.find((candidate) => candidate.eventId === id.toString()),
    15_000,
    'the delivery',
  );
  expect(signatureValid(request, secret)).toBe(true);
  expect(JSON.parse(request.body)).toEqual({
    id: id.toString(),
    type: 'test.pinged',
    workspaceId: shop.workspaceId,
    createdAt: at.toISOString(),
    test: false,
    data: { ping: 7, note: 'hello' },
  });
  // The invoice's own event is in the feed but, not being a webhook kind, was never sent.
  expect(receiver.received.map((received) => received.eventId)).toEqual([id.toString()]);
});
