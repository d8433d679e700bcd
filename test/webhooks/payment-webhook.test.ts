import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { JsonLinesEventStore, type FulfilmentRecord } from '../../examples/webhook-receiver/event-store.js';
import { MemoryOrderStore } from '../../examples/webhook-receiver/orders.js';
import { paymentApi } from '../../examples/webhook-receiver/payment-api.js';
import { createReceiver, type Decision, type Receiver } from '../../examples/webhook-receiver/receiver.js';
import { waitFor } from '../jobs/support.js';
import { merchant } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { startPayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain, { env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
const storeDir = await mkdtemp(path.join(os.tmpdir(), 'receiver-'));
afterAll(() => rm(storeDir, { recursive: true, force: true }));

/** The reference receiver on a real port; its handler is set once the secret is known. */
async function listen(): Promise<{ url: string; use(receiver: Receiver): void }> {
  let handle: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server = createServer((req, res) => handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    use: (receiver) => (handle = receiver.handle),
  };
}

it(
  'a paid invoice reaches the reference receiver as exactly one accepted, verified payment_intent.succeeded',
  { timeout: 90_000 },
  async () => {
    const shop = await merchant(paying.app, [
      'invoices:create',
      'invoices:read',
      'payments:read',
      'webhooks:read',
      'webhooks:write',
    ]);
    const headers = { authorization: `Bearer ${shop.apiKey}` };
    const api = `/w/${shop.workspaceId}/v1`;
    const endpoint = await listen();
    const configured = await paying.app.inject({
      method: 'PUT',
      url: `${api}/webhook`,
      headers,
      payload: { endpoint: endpoint.url, enabled: true },
    });
    const { secret } = configured.json<{ secret: string }>();

    const created = await paying.app.inject({
      method: 'POST',
      url: `${api}/invoices`,
      headers: { ...headers, 'idempotency-key': 'webhook-e2e-1' },
      payload: { amount: '3.25', externalId: 'order-1' },
    });
    const invoice = created.json<{ id: string; url: string }>();

    const decisions: Decision[] = [];
    const fulfilled: FulfilmentRecord[] = [];
    const store = await JsonLinesEventStore.open(path.join(storeDir, 'events.jsonl'));
    afterAll(() => store.close());
    endpoint.use(
      createReceiver({
        secret,
        workspaceId: shop.workspaceId,
        lookupIntent: paymentApi(`${paying.origin}${api}`, shop.apiKey),
        orders: new MemoryOrderStore([
          { id: 'order-1', invoiceId: invoice.id, amount: '3.25', recipient: shop.wallet.address },
        ]),
        store,
        onFulfil: (record) => void fulfilled.push(record),
        onDecision: (decision) => void decisions.push(decision),
      }),
    );

    const payer = await chain.payer(10_000_000n);
    const paid = await payV2(payer)(invoice.url.replace('http://localhost:3000', paying.origin));
    expect(paid.status).toBe(200);

    await waitFor(() => (fulfilled.length > 0 ? true : undefined), 30_000, 'the fulfilment');
    const delivery = await waitFor(
      async () => {
        const view = await paying.app.inject({ method: 'GET', url: `${api}/webhook`, headers });
        const [latest] = view.json<{ deliveries: { status: string; eventId: string }[] }>().deliveries;
        return latest?.status === 'succeeded' ? latest : undefined;
      },
      10_000,
      'the delivery to be recorded',
    );

    expect(decisions).toEqual([
      { status: 200, outcome: 'queued', eventId: delivery.eventId, paymentIntentId: expect.stringMatching(/^pi_/) },
    ]);
    expect(fulfilled).toHaveLength(1);
    expect(fulfilled[0]).toMatchObject({
      workspaceId: shop.workspaceId,
      eventId: delivery.eventId,
      invoiceId: invoice.id,
      orderId: 'order-1',
    });
    // The same event id is in the feed, for recovery.
    const feed = await paying.app.inject({ method: 'GET', url: `${api}/changes?after=0`, headers });
    const succeeded = feed
      .json<{ events: { id: string; type: string }[] }>()
      .events.filter((event) => event.type === 'payment_intent.succeeded');
    expect(succeeded.map((event) => event.id)).toEqual([delivery.eventId]);
  },
);
