import { beforeAll, expect, it } from 'vitest';
import { fundWithUsdc } from '../../src/chain/local-chain.js';
import { createWorkers, scheduleRecurringJobs } from '../../src/main/jobs.js';
import { systemClock } from '../../src/shared/clock.js';
import { createTestApp, merchant, type TestApp } from '../support/app.js';
import { createTestChain } from '../support/chain.js';

// Two networks, each a real anvil with its own chain id: an invoice payable on one, paid on the other.
const baseSepolia = await createTestChain();
const other = await createTestChain({ network: { name: 'other-chain', chainId: 31337 } });
let app: TestApp;
let shop: Awaited<ReturnType<typeof merchant>>;

beforeAll(async () => {
  app = await createTestApp({ NEW_WORKSPACE_CREDITS: '100000' }, systemClock, {
    networks: [baseSepolia.network, other.network],
    chain: baseSepolia.chain,
  });
  const workers = createWorkers(app.services, app.database.connection);
  await scheduleRecurringJobs(app.services);
  await workers.start();
  shop = await merchant(app.app, ['invoices:create', 'invoices:read', 'payments:read']);
  return () => workers.stop();
});

const call = (method: 'GET' | 'POST', path: string, payload?: object) =>
  app.app.inject({
    method,
    url: `/w/${shop.workspaceId}/v1${path}`,
    headers: {
      authorization: `Bearer ${shop.apiKey}`,
      ...(method === 'POST' && { 'idempotency-key': 'other-network-1' }),
    },
    ...(payload && { payload }),
  });

it('a transfer of the amount made on another network than the invoice’s pays nothing and is recorded there', async () => {
  const created = await call('POST', '/invoices', { amount: '6.66', network: 'base-sepolia' });
  expect(created.statusCode, created.body).toBe(201);
  const invoice = created.json<{ id: string; payTo: `0x${string}` }>();

  // The test token's mint is a Transfer to the wallet like any other, on the network the buyer chose.
  const minted = await fundWithUsdc(other.rpcUrl, invoice.payTo, 6_660_000n);

  const received = async () =>
    (await call('GET', '/received-transfers?status=unmatched')).json<{
      receivedTransfers: { network: string; transactionHash: string; reason: string; amount: string }[];
    }>().receivedTransfers;
  await expect.poll(received, { timeout: 20_000, interval: 200 }).toEqual([
    expect.objectContaining({
      network: 'other-chain',
      transactionHash: minted.toLowerCase(),
      reason: 'no_matching_invoice',
      amount: '6.660000',
    }),
  ]);
  expect((await call('GET', `/invoices/${invoice.id}`)).json<{ status: string }>().status).toBe('open');
});
