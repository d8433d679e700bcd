import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLocalPublicClient } from '../../src/chain/local-chain.js';
import { createWorkers, scheduleRecurringJobs } from '../../src/main/jobs.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestApp, merchant, type TestApp } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, transfer } from '../support/checkout.js';
import { startRpcProxy } from '../support/rpc-proxy.js';

// The service talks to the chain only through a counting JSON-RPC proxy: what the scan asks of the node
// is counted, idle and while an invoice waits. A block a second, one confirmation.
const chain = await createTestChain();
const proxy = await startRpcProxy(chain.rpcUrl);
const node = createLocalPublicClient(chain.rpcUrl);
let app: TestApp;
let shop: Awaited<ReturnType<typeof merchant>>;
let workers: ReturnType<typeof createWorkers> | undefined;

beforeAll(async () => {
  const network = { ...chain.network, rpcUrls: [proxy.url] };
  app = await createTestApp({ NEW_WORKSPACE_CREDITS: '100000' }, systemClock, {
    networks: [network],
    chain: chain.chain,
  });
  await scheduleRecurringJobs(app.services);
  shop = await merchant(app.app, ['invoices:create', 'invoices:read', 'payments:read']);
});
afterAll(() => workers?.stop());

async function startWorkers() {
  workers = createWorkers(app.services, app.database.connection);
  await workers.start();
}

let keys = 0;
async function openInvoice(amount: string): Promise<{ id: string; payTo: `0x${string}` }> {
  const response = await app.app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `position-${++keys}-key` },
    payload: { amount },
  });
  expect(response.statusCode).toBe(201);
  return response.json();
}

const statusOf = async (invoiceId: string) =>
  (
    await app.app.inject({
      url: `/w/${shop.workspaceId}/v1/invoices/${invoiceId}`,
      headers: { authorization: `Bearer ${shop.apiKey}` },
    })
  ).json<{ status: string }>().status;

/** Resolves once the node has mined `count` more blocks; answers how many it mined meanwhile. */
async function blocksPass(count: number): Promise<bigint> {
  const start = await node.getBlockNumber();
  await expect
    .poll(() => node.getBlockNumber(), { timeout: (count + 5) * 1000, interval: 100 })
    .toBeGreaterThanOrEqual(start + BigInt(count));
  return (await node.getBlockNumber()) - start;
}

const scanPosition = async () =>
  (await app.database.db.selectFrom('transfer_scans').select('next_block').executeTakeFirst())?.next_block ?? null;

it('asks the node nothing while no invoice is open', async () => {
  await startWorkers();
  proxy.reset();
  await blocksPass(4);
  expect(proxy.calls()).toEqual({});
});

it('while an invoice waits and nothing is paid: at most 2 calls a block, a block number and the logs', async () => {
  await openInvoice('2.22');
  // The scan's first look (the database shows the invoice at its next idle check) starts the count.
  await expect.poll(scanPosition, { timeout: 10_000 }).not.toBeNull();
  proxy.reset();
  const mined = await blocksPass(8);
  const calls = proxy.calls();
  expect(Object.keys(calls).sort()).toEqual(['eth_blockNumber', 'eth_getLogs']);
  // One look a block: a look that comes just before a block may find none new, so one more is allowed.
  expect(proxy.total()).toBeLessThanOrEqual(2 * Number(mined) + 2);
  expect(calls['eth_getLogs']).toBeLessThanOrEqual(Number(mined) + 1);
});

it('a transfer made while the service is stopped is found, and pays, when it starts again', async () => {
  const invoice = await openInvoice('3.33');
  await expect.poll(scanPosition, { timeout: 10_000 }).not.toBeNull();
  await workers!.stop();
  const stoppedAt = await scanPosition();

  const payer = await chain.payer(3_330_000n);
  await fundGas(chain.rpcUrl, payer.address);
  const sent = await transfer(chain.rpcUrl, payer, invoice.payTo, 3_330_000n);
  await blocksPass(3);
  // Nothing ran meanwhile: the scan stands where it stopped, before the transfer's block.
  expect(await scanPosition()).toBe(stoppedAt);
  expect(await statusOf(invoice.id)).toBe('open');

  await startWorkers();
  await expect.poll(() => statusOf(invoice.id), { timeout: 20_000, interval: 200 }).toBe('paid');
  const payment = await app.database.db
    .selectFrom('payment_intents')
    .select(['tx_hash', 'status'])
    .where('invoice_id', '=', invoice.id)
    .executeTakeFirstOrThrow();
  expect(payment).toEqual({ tx_hash: sent.hash.toLowerCase(), status: 'succeeded' });
});
