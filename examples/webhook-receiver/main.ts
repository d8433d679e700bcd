import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { JsonLinesEventStore } from './event-store.js';
import { MemoryOrderStore, type Order } from './orders.js';
import { paymentApi } from './payment-api.js';
import { createReceiver } from './receiver.js';

// The composition root: the only place that reads the environment and listens.
function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required (see examples/webhook-receiver/README.md).`);
  return value;
}

const port = Number(process.env.PORT ?? '8080');
if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('PORT must be an integer 0–65535.');
const apiBase = required('API_BASE');
const workspaceId = required('WORKSPACE_ID');
if (!apiBase.replace(/\/+$/, '').endsWith(`/w/${workspaceId}/v1`))
  throw new Error('API_BASE must be https://<host>/w/<WORKSPACE_ID>/v1.');

const store = await JsonLinesEventStore.open(process.env.STORE_FILE ?? './webhook-events.jsonl');
// Stand-in for your orders table: a JSON array of { id, invoiceId, amount, recipient }.
const orders: Order[] = process.env.ORDERS_FILE
  ? (JSON.parse(await readFile(process.env.ORDERS_FILE, 'utf8')) as Order[])
  : [];

const log = (fields: Record<string, unknown>) =>
  console.log(JSON.stringify({ at: new Date().toISOString(), ...fields }));

const receiver = createReceiver({
  secret: required('WEBHOOK_SECRET'),
  workspaceId,
  lookupIntent: paymentApi(apiBase, required('API_KEY')),
  orders: new MemoryOrderStore(orders),
  store,
  // Replace with your fulfilment: idempotent per order ("mark paid and ship unless already shipped").
  onFulfil: (record) =>
    log({ msg: 'fulfil', orderId: record.orderId, invoiceId: record.invoiceId, eventId: record.eventId }),
  // One line per request; a mismatch is a paid-but-wrong payment that a person must look at.
  onDecision: (decision) =>
    log({ msg: decision.outcome === 'mismatch' ? 'ALERT payment does not match its order' : 'webhook', ...decision }),
  onFulfilFailed: (record, error) =>
    log({ msg: 'fulfilment failed; will retry', eventId: record.eventId, error: String(error) }),
});

const server = http.createServer(receiver.handle);
server.listen(port, () => log({ msg: 'listening', port, workspaceId }));

// Recorded but unfinished fulfilments (a crash, a throwing onFulfil) are retried at start and every minute.
const resume = () =>
  receiver.resumePending().catch((error: unknown) => log({ msg: 'resume failed', error: String(error) }));
await resume();
const timer = setInterval(() => void resume(), 60_000);

// Stop taking requests, let started fulfilments finish, then close the file.
const stop = () => {
  clearInterval(timer);
  server.close(() => void receiver.drain().then(() => store.close()));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
