import { expect, it } from 'vitest';
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
