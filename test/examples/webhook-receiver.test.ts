import { createHmac, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  JsonLinesEventStore,
  type EventStore,
  type FulfilmentRecord,
} from '../../examples/webhook-receiver/event-store.js';
import { MemoryOrderStore } from '../../examples/webhook-receiver/orders.js';
import { paymentApi } from '../../examples/webhook-receiver/payment-api.js';
import { createReceiver, type Decision, type ReceiverOptions } from '../../examples/webhook-receiver/receiver.js';

const SECRET = `whsec_${randomBytes(32).toString('base64url')}`;
const WORKSPACE = 'ws_shop1';
const API_KEY = 'sk_test_receiver';
const WALLET = '0xabcdefabcdefabcdefabcdefabcdefabcdefabcd';
// The merchant saved the checksummed spelling; the service answers in lower case.
const ORDER = {
  id: 'order-17',
  invoiceId: 'inv_17',
  amount: '12.5',
  recipient: '0xAbCdEfAbCdEfAbCdEfAbCdEfAbCdEfAbCdEfAbCd',
};

/** What the stand-in for GET /payment-intents/{id} answers; each test starts from a matching intent. */
const api = { status: 200, intent: {} as Record<string, unknown>, calls: 0 };
const paidIntent = () => ({
  id: 'pi_1',
  status: 'succeeded',
  failureReason: null,
  invoiceId: 'inv_17',
  invoiceNumber: 'INV-000017',
  externalId: 'order-17',
  method: 'transaction',
  network: 'base',
  amount: '12.500000',
  currency: 'USDC',
  recipient: WALLET,
  payer: '0x1111111111111111111111111111111111111111',
  transactionHash: `0x${'ab'.repeat(32)}`,
  blockNumber: '123',
  submittedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:05.000Z',
});

const apiServer = http.createServer((request, response) => {
  api.calls++;
  const authorized = request.headers.authorization === `Bearer ${API_KEY}`;
  const known = request.url === `/w/${WORKSPACE}/v1/payment-intents/pi_1`;
  const status = !authorized ? 401 : !known ? 404 : api.status;
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify(status === 200 ? api.intent : { code: 'error' }));
});
let apiBase = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => apiServer.listen(0, '127.0.0.1', resolve));
  apiBase = `http://127.0.0.1:${(apiServer.address() as AddressInfo).port}/w/${WORKSPACE}/v1`;
});
afterAll(() => new Promise<void>((resolve) => apiServer.close(() => resolve())));

let dir = '';
let storeFile = '';
const running: { close(): Promise<void> }[] = [];

beforeEach(async () => {
  Object.assign(api, { status: 200, intent: paidIntent(), calls: 0 });
  dir = await mkdtemp(path.join(os.tmpdir(), 'webhook-receiver-'));
  storeFile = path.join(dir, 'events.jsonl');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((receiver) => receiver.close()));
  await rm(dir, { recursive: true, force: true });
});

/** A receiver on a loopback port, over its own file store unless `store` is given. */
async function startReceiver(overrides: Partial<ReceiverOptions> = {}) {
  const fileStore = await JsonLinesEventStore.open(storeFile);
  const fulfilled: FulfilmentRecord[] = [];
  const decisions: Decision[] = [];
  const receiver = createReceiver({
    secret: SECRET,
    workspaceId: WORKSPACE,
    lookupIntent: paymentApi(apiBase, API_KEY),
    orders: new MemoryOrderStore([ORDER]),
    store: fileStore,
    onFulfil: (record) => void fulfilled.push(record),
    onDecision: (decision) => void decisions.push(decision),
    ...overrides,
  });
  const server = http.createServer(receiver.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const handle = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    receiver,
    fulfilled,
    decisions,
    store: fileStore,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await receiver.drain();
      await fileStore.close();
    },
  };
  running.push(handle);
  return handle;
}

function event(overrides: Record<string, unknown> = {}) {
  return JSON.stringify({
    id: '42',
    type: 'payment_intent.succeeded',
    workspaceId: WORKSPACE,
    createdAt: '2026-01-01T00:00:05.000Z',
    test: false,
    data: { paymentIntent: paidIntent(), invoice: { id: 'inv_17', number: 'INV-000017', externalId: 'order-17' } },
    ...overrides,
  });
}

/** Signs like the service: v1=hex(HMAC-SHA256(secret, "<timestamp>.<raw body>")), a fresh timestamp per attempt. */
function sign(body: string, { at = Math.floor(Date.now() / 1000), secret = SECRET } = {}) {
  const timestamp = String(at);
  return { timestamp, signature: `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}` };
}

async function deliver(
  url: string,
  body: string,
  options: { at?: number; secret?: string; eventId?: string; sendBody?: string } = {},
) {
  const { timestamp, signature } = sign(body, options);
  const eventId = options.eventId ?? (JSON.parse(body) as { id: string }).id;
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-payment-event-id': eventId,
      'x-payment-timestamp': timestamp,
      'x-payment-signature': signature,
    },
    body: options.sendBody ?? body,
  });
  return { status: response.status, body: (await response.json()) as { outcome: string; reason?: string } };
}

const storedLines = async () => (await readFile(storeFile, 'utf8')).split('\n').filter(Boolean);

describe('a payment that matches its order', () => {
  it('is recorded durably, acknowledged and fulfilled once', async () => {
    const shop = await startReceiver();
    expect(await deliver(shop.url, event())).toEqual({ status: 200, body: { outcome: 'queued' } });
    await shop.receiver.drain();
    expect(shop.fulfilled).toEqual([
      expect.objectContaining({
        workspaceId: WORKSPACE,
        eventId: '42',
        paymentIntentId: 'pi_1',
        invoiceId: 'inv_17',
        orderId: 'order-17',
      }),
    ]);
    expect(await shop.store.pending()).toEqual([]);
    expect((await storedLines()).map((line) => (JSON.parse(line) as { kind: string }).kind)).toEqual([
      'received',
      'fulfilled',
    ]);
  });

  it('answers a redelivery of the same event id (new timestamp and signature) with 2xx without fulfilling again', async () => {
    const shop = await startReceiver();
    await deliver(shop.url, event());
    const again = await deliver(shop.url, event(), { at: Math.floor(Date.now() / 1000) + 1 });
    await shop.receiver.drain();
    expect(again).toEqual({ status: 200, body: { outcome: 'duplicate' } });
    expect(shop.fulfilled).toHaveLength(1);
  });

  it('still deduplicates after a restart on the same store file', async () => {
    const first = await startReceiver();
    await deliver(first.url, event());
    await first.close();
    running.splice(running.indexOf(first), 1);
    const restarted = await startReceiver();
    expect((await deliver(restarted.url, event())).body.outcome).toBe('duplicate');
    expect(restarted.fulfilled).toEqual([]);
  });

  it('fulfils once when the service delivers the same event five times at once', async () => {
    const shop = await startReceiver();
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(shop.url, event())));
    await shop.receiver.drain();
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.filter((answer) => answer.body.outcome === 'queued')).toHaveLength(1);
    expect(shop.fulfilled).toHaveLength(1);
  });

  it('keeps a fulfilment that threw and runs it again after a restart', async () => {
    const crashing = await startReceiver({ onFulfil: () => Promise.reject(new Error('warehouse down')) });
    expect((await deliver(crashing.url, event())).status).toBe(200);
    await crashing.close();
    running.splice(running.indexOf(crashing), 1);
    const restarted = await startReceiver();
    expect(await restarted.receiver.resumePending()).toBe(1);
    await restarted.receiver.drain();
    expect(restarted.fulfilled.map((record) => record.orderId)).toEqual(['order-17']);
    expect(await restarted.store.pending()).toEqual([]);
  });
});

describe('requests that do not prove themselves are refused and leave no record', () => {
  const now = () => Math.floor(Date.now() / 1000);
  it.each([
    ['signed with another secret', { secret: `whsec_${randomBytes(32).toString('base64url')}` }, 'signature_mismatch'],
    ['signed 10 minutes ago', { at: now() - 600 }, 'timestamp_out_of_tolerance'],
    [
      'altered by one byte after signing',
      { sendBody: event().replace('12.500000', '12.500001') },
      'signature_mismatch',
    ],
  ])('%s → 401', async (_name, options, reason) => {
    const shop = await startReceiver();
    expect(await deliver(shop.url, event(), options)).toEqual({ status: 401, body: { outcome: 'rejected', reason } });
    expect(await storedLines()).toEqual([]);
    expect(api.calls).toBe(0);
  });

  it('refuses missing or malformed signature headers with 401', async () => {
    const shop = await startReceiver();
    const post = (headers: Record<string, string>) =>
      fetch(shop.url, { method: 'POST', headers, body: event() }).then((response) => response.status);
    const { timestamp } = sign(event());
    expect(await post({})).toBe(401);
    expect(await post({ 'x-payment-timestamp': timestamp, 'x-payment-signature': 'v1=' })).toBe(401);
    expect(await post({ 'x-payment-timestamp': timestamp, 'x-payment-signature': `v1=${'zz'.repeat(32)}` })).toBe(401);
    expect(await post({ 'x-payment-timestamp': 'yesterday', 'x-payment-signature': sign(event()).signature })).toBe(
      401,
    );
  });

  it('refuses an event of another workspace with 403', async () => {
    const shop = await startReceiver();
    const body = event({ workspaceId: 'ws_other' });
    expect(await deliver(shop.url, body)).toEqual({
      status: 403,
      body: { outcome: 'rejected', reason: 'wrong_workspace' },
    });
    expect(await storedLines()).toEqual([]);
  });

  it('refuses a header event id that differs from the body id with 400', async () => {
    const shop = await startReceiver();
    expect((await deliver(shop.url, event(), { eventId: '43' })).status).toBe(400);
    expect(await storedLines()).toEqual([]);
  });

  it('refuses malformed JSON with a valid signature with 400', async () => {
    const shop = await startReceiver();
    const body = '{"id":"42",';
    expect((await deliver(shop.url, body, { eventId: '42', sendBody: body })).status).toBe(400);
    expect(await storedLines()).toEqual([]);
  });
});

describe('events that fulfil nothing are acknowledged', () => {
  it.each([
    ['a test event', event({ id: 'test_abc', type: 'webhook.test', test: true, data: {} }), 'test'],
    ['an invoice.scheduled event', event({ type: 'invoice.scheduled', data: {} }), 'ignored_type'],
  ])('%s → 200 without fulfilment or API call', async (_name, body, outcome) => {
    const shop = await startReceiver();
    expect((await deliver(shop.url, body)).body.outcome).toBe(outcome);
    expect(shop.fulfilled).toEqual([]);
    expect(api.calls).toBe(0);
  });

  it('acknowledges a payment that belongs to no order', async () => {
    const shop = await startReceiver({ orders: new MemoryOrderStore([]) });
    expect(await deliver(shop.url, event())).toEqual({ status: 200, body: { outcome: 'no_order' } });
    expect(shop.fulfilled).toEqual([]);
  });

  it.each([
    ['amount', { amount: '12.000000' }, 'amount_mismatch'],
    ['recipient', { recipient: '0x2222222222222222222222222222222222222222' }, 'recipient_mismatch'],
    ['status failed', { status: 'failed' }, 'payment_failed'],
    ['invoice', { invoiceId: 'inv_other', externalId: 'order-17' }, 'invoice_mismatch'],
  ])(
    'acknowledges but does not fulfil when the re-checked %s differs (final: alert, no retry)',
    async (_name, change, reason) => {
      Object.assign(api.intent, change);
      const shop = await startReceiver();
      expect(await deliver(shop.url, event())).toEqual({ status: 200, body: { outcome: 'mismatch', reason } });
      expect(shop.fulfilled).toEqual([]);
      expect(await storedLines()).toEqual([]);
    },
  );
});

describe('conditions a retry can fix answer 503 and record nothing', () => {
  it.each([
    ['answers 500', () => (api.status = 500)],
    ['answers 404 (key of another workspace)', () => (api.status = 404)],
    ['still reports the payment as processing', () => (api.intent.status = 'processing')],
  ])('the payment API %s, then the retry is fulfilled', async (_name, breakApi) => {
    breakApi();
    const shop = await startReceiver();
    expect((await deliver(shop.url, event())).status).toBe(503);
    expect(await storedLines()).toEqual([]);
    Object.assign(api, { status: 200, intent: paidIntent() });
    expect((await deliver(shop.url, event())).body.outcome).toBe('queued');
    await shop.receiver.drain();
    expect(shop.fulfilled).toHaveLength(1);
  });

  it('the payment API is unreachable', async () => {
    const shop = await startReceiver({ lookupIntent: paymentApi('http://127.0.0.1:1/w/ws_shop1/v1', API_KEY) });
    expect(await deliver(shop.url, event())).toEqual({
      status: 503,
      body: { outcome: 'retry', reason: 'intent_unavailable' },
    });
    expect(await storedLines()).toEqual([]);
  });

  it('the event store cannot persist', async () => {
    const broken: EventStore = {
      recordOnce: () => Promise.reject(new Error('disk full')),
      markFulfilled: async () => {},
      pending: async () => [],
    };
    const shop = await startReceiver({ store: broken });
    expect(await deliver(shop.url, event())).toEqual({
      status: 503,
      body: { outcome: 'retry', reason: 'store_unavailable' },
    });
    expect(shop.fulfilled).toEqual([]);
  });
});
