import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { JsonLinesEventStore } from '../../examples/webhook-receiver/event-store.js';
import { MemoryOrderStore } from '../../examples/webhook-receiver/orders.js';
import { createReceiver, type Decision } from '../../examples/webhook-receiver/receiver.js';
import { waitFor } from '../jobs/support.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestApp } from '../support/app.js';
import { signatureValid, startTestReceiver } from '../support/webhook-receiver.js';
import { startWorker, webhookShop } from '../support/webhooks.js';

const testApp = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' }, systemClock);
await startWorker(testApp);

it(
  'the worker creates the due invoice and the receiver gets a signed invoice.scheduled with it',
  { timeout: 30_000 },
  async () => {
    const shop = await webhookShop(testApp);
    const receiver = await startTestReceiver();
    const secret = await shop.configure(receiver.url);
    const startAt = new Date(Date.now() + 1500);
    const created = await testApp.app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/automations`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': 'automation-webhook-1' },
      payload: {
        name: 'Weekly',
        template: { amount: '3.5', externalId: 'week-{n}' },
        schedule: { every: 'week', startAt: startAt.toISOString() },
      },
    });
    expect(created.statusCode).toBe(201);
    const automation = created.json<{ id: string }>();

    const request = await waitFor(() => receiver.received[0], 20_000, 'the invoice.scheduled delivery');
    expect(signatureValid(request, secret)).toBe(true);
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      type: 'invoice.scheduled',
      workspaceId: shop.workspaceId,
      test: false,
      data: {
        automationId: automation.id,
        occurrence: 1,
        invoice: {
          number: 'INV-000001',
          amount: '3.500000',
          externalId: 'week-1',
          automationId: automation.id,
          status: 'open',
        },
      },
    });
    // Created at its time, not before it.
    expect(new Date(body.createdAt).getTime()).toBeGreaterThanOrEqual(startAt.getTime());
    const invoice = await shop.api('GET', `/invoices/${body.data.invoice.id}`);
    expect(invoice.body).toEqual(body.data.invoice);
    expect(receiver.received).toHaveLength(1);
  },
);

it(
  'the reference receiver verifies a real invoice.scheduled and acknowledges it as no proof of payment',
  { timeout: 30_000 },
  async () => {
    const shop = await webhookShop(testApp);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'reference-receiver-'));
    const store = await JsonLinesEventStore.open(path.join(dir, 'events.jsonl'));
    const decisions: Decision[] = [];
    // The receiver needs the secret, which needs the receiver's URL: the server hands on to it once made.
    const receiver: { handle?: http.RequestListener } = {};
    const server = http.createServer((request, response) => receiver.handle!(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    afterAll(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
      await rm(dir, { recursive: true, force: true });
    });
    const secret = await shop.configure(`http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`);
    receiver.handle = createReceiver({
      secret,
      workspaceId: shop.workspaceId,
      lookupIntent: () => Promise.reject(new Error('an invoice.scheduled is never looked up as a payment')),
      orders: new MemoryOrderStore([]),
      store,
      onFulfil: () => {
        throw new Error('an invoice.scheduled must fulfil nothing');
      },
      onDecision: (decision) => void decisions.push(decision),
    }).handle;

    const created = await testApp.app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/automations`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': 'automation-webhook-2' },
      payload: {
        name: 'Hourly',
        template: { amount: '1' },
        schedule: { every: 'hour', startAt: new Date(Date.now() + 1000).toISOString() },
      },
    });
    expect(created.statusCode).toBe(201);
    const decision = await waitFor(() => decisions[0], 20_000, "the reference receiver's decision");
    // Signature, timestamp, event id and tenant all checked; then acknowledged (2xx), fulfilling nothing.
    expect(decision).toMatchObject({ status: 200, outcome: 'ignored_type', reason: 'invoice.scheduled' });
  },
);
