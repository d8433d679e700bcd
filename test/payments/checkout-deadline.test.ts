import { afterAll, expect, it } from 'vitest';
import { createLocalPublicClient } from '../../src/chain/local-chain.js';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp, merchant } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { advanceChainTime, broadcast, fundGas, settledPayment, signTransfer, transfer } from '../support/checkout.js';

// The service's clock moves only when told to; the chain's clock is moved to match where a test needs it.
const clock = new ManualClock(new Date());
const chain = await createTestChain();
const { app, services, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000' },
  clock,
  chain,
);
const runner = new JobRunner({
  db: database.db,
  connection: database.connection,
  handlers: jobHandlers(services),
  pollIntervalMs: 200,
});
await runner.start();
afterAll(() => runner.stop());

const shop = await merchant(app, ['invoices:create', 'invoices:read', 'payments:read']);
const HOUR_AND_A_MINUTE = 3660_000;
const MINUTE = 60_000;
let counter = 0;

async function invoice(amount = '2.5') {
  counter += 1;
  const response = await app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `deadline-${counter}-${Date.now()}` },
    payload: { amount, expiresIn: 3600 },
  });
  const created = response.json<{ id: string; expiresAt: string }>();
  return { ...created, path: `/w/${shop.workspaceId}/i/${created.id}` };
}

async function buyer() {
  const account = await chain.payer(10_000_000n);
  await fundGas(chain.rpcUrl, account.address);
  return account;
}

/** Makes the next block no earlier than the service's clock. */
async function alignChainWithClock(): Promise<void> {
  const latest = await createLocalPublicClient(chain.rpcUrl).getBlock();
  const behind = Math.ceil(clock.now().getTime() / 1000) - Number(latest.timestamp);
  if (behind > 0) await advanceChainTime(chain.rpcUrl, behind + 1);
}

const submitHash = (path: string, txHash: string) =>
  app.inject({ method: 'POST', url: `${path}/transactions`, payload: { network: 'base-sepolia', txHash } });
const events = async (invoiceId: string) =>
  (
    await database.db.selectFrom('events').select('type').where('invoice_id', '=', invoiceId).orderBy('id').execute()
  ).map((event) => event.type);

it('a made-up hash holds nothing: the invoice stays payable, and the hash is dropped after the window without a trace', async () => {
  const open = await invoice();
  const madeUp = await submitHash(open.path, `0x${'5a'.repeat(32)}`);
  expect(madeUp.statusCode).toBe(202);
  await new Promise((resolve) => setTimeout(resolve, 1500)); // the job has looked for it
  const waiting = (await app.inject({ method: 'GET', url: open.path, headers: { accept: 'application/json' } })).json();
  expect(waiting).toMatchObject({ status: 'open', payment: { status: 'processing' } });

  // Another buyer (or the same one, another way) pays meanwhile.
  await alignChainWithClock();
  const sent = await transfer(chain.rpcUrl, await buyer(), shop.wallet.address, 2_500_000n);
  expect((await submitHash(open.path, sent.hash)).statusCode).toBe(202);
  expect(await settledPayment(app, open.path)).toMatchObject({ status: 'paid', payment: { status: 'succeeded' } });

  clock.advance(11 * MINUTE);
  const intentPath = `/w/${shop.workspaceId}/v1/payment-intents/${madeUp.json().paymentIntentId}`;
  let dropped;
  for (let tries = 0; tries < 100; tries += 1) {
    dropped = (await app.inject({ url: intentPath, headers: { authorization: `Bearer ${shop.apiKey}` } })).json();
    if (dropped.status !== 'processing') break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(dropped).toMatchObject({ status: 'failed', failureReason: 'not_found', overpayment: false });
  expect(await events(open.id)).toEqual([
    'invoice.created',
    'invoice.processing',
    'payment_intent.processing',
    'invoice.paid',
    'payment_intent.succeeded',
  ]);
});

it('late verification: a hash submitted before the deadline and mined after it pays the invoice', async () => {
  const due = await invoice();
  const payer = await buyer();
  const signed = await signTransfer(chain.rpcUrl, payer, shop.wallet.address, 2_500_000n);
  // Submitted 5 minutes before the deadline, sent 6 minutes later: within the 10 minutes the job keeps
  // looking for an unseen hash, whenever it runs.
  clock.advance(55 * MINUTE);
  expect((await submitHash(due.path, signed.hash)).statusCode).toBe(202);

  clock.advance(6 * MINUTE);
  // The expiry job records the deadline before the transfer lands: the late payment still completes it.
  await services.invoices.expireDue();
  await alignChainWithClock();
  const mined = await broadcast(chain.rpcUrl, signed.raw);
  expect(mined.blockTime.getTime()).toBeGreaterThan(new Date(due.expiresAt).getTime());

  expect(await settledPayment(app, due.path)).toMatchObject({
    status: 'paid',
    payment: { status: 'succeeded', transactionHash: signed.hash },
  });
});

it('a transfer of the wrong amount found after the deadline leaves the invoice expired, and is recorded as received', async () => {
  const due = await invoice();
  const payer = await buyer();
  const signed = await signTransfer(chain.rpcUrl, payer, shop.wallet.address, 2_000_000n);
  clock.advance(55 * MINUTE);
  expect((await submitHash(due.path, signed.hash)).statusCode).toBe(202);
  clock.advance(6 * MINUTE);
  await alignChainWithClock();
  await broadcast(chain.rpcUrl, signed.raw);

  const settled = await settledPayment(app, due.path);
  expect(settled).toMatchObject({
    status: 'expired',
    networks: [],
    authorizationNonce: null,
    payment: { status: 'failed', failureReason: 'amount_mismatch' },
  });
  await services.invoices.expireDue();
  // No payment reached the feed; the money that reached the wallet is there for the merchant to resolve.
  expect(await events(due.id)).toEqual(['invoice.created', 'transfer.unmatched', 'invoice.expired']);
  const row = await database.db
    .selectFrom('invoices')
    .select(['status', 'fee_reserved'])
    .where('id', '=', due.id)
    .executeTakeFirstOrThrow();
  expect(row).toEqual({ status: 'expired', fee_reserved: 0n });
});

it('refuses a transfer submitted after the deadline: the invoice stays expired and no attempt is recorded', async () => {
  const due = await invoice();
  clock.advance(HOUR_AND_A_MINUTE);
  await alignChainWithClock();
  const payer = await buyer();
  const sent = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_500_000n);

  const response = await submitHash(due.path, sent.hash);
  expect(response.statusCode).toBe(409);
  expect(response.json().code).toBe('invoice_expired');
  const view = (await app.inject({ method: 'GET', url: due.path, headers: { accept: 'application/json' } })).json();
  expect(view).toMatchObject({ status: 'expired', networks: [], payment: null });
});

it('fails a transfer mined before the invoice existed (predates_invoice): an old transfer to the wallet pays nothing new', async () => {
  await alignChainWithClock();
  const payer = await buyer();
  const old = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_500_000n);
  clock.set(new Date(Math.max(clock.now().getTime(), old.blockTime.getTime()) + 5 * 60_000));
  const fresh = await invoice();

  expect((await submitHash(fresh.path, old.hash)).statusCode).toBe(202);
  expect(await settledPayment(app, fresh.path)).toMatchObject({
    status: 'open',
    payment: { status: 'failed', failureReason: 'predates_invoice' },
  });
});
