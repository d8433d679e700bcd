import type { PrivateKeyAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalPublicClient } from '../../src/chain/local-chain.js';
import { scheduleRecurringJobs } from '../../src/main/jobs.js';
import { createTestChain } from '../support/chain.js';
import { fundGas, signCheckoutAuthorization, transfer } from '../support/checkout.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { openShop, startPayingApp, type InvoiceView, type Shop } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

// One anvil behind two providers that are fault-injecting proxies on loopback: the network's rpcUrls
// are [first, second]. Payments of every kind go through the service while the first one fails.
let first!: FaultProxy;
let second!: FaultProxy;
const chain = await createTestChain({
  providers: async (rpcUrl) => {
    first = await startFaultProxy(rpcUrl);
    second = await startFaultProxy(rpcUrl);
    return [first.url, second.url];
  },
});
const paying = await startPayingApp(chain);
let shop: Shop;
/** Every status the service answered a client with, to prove none was a 5xx. */
const statuses: number[] = [];
const PAID = { timeout: 45_000, interval: 200 };

beforeAll(async () => {
  await scheduleRecurringJobs(paying.services);
  shop = await openShop(paying);
  // The scan follows the shop's wallet from now on: an open invoice keeps it watched. (A scan that starts
  // later looks back by the block time, which the funding of many payers at once outruns on anvil.)
  await shop.invoice('0.01');
  await vi.waitFor(async () => {
    const scan = await paying.database.db.selectFrom('transfer_scans').select('next_block').executeTakeFirst();
    expect(scan?.next_block).toBeTypeOf('bigint');
  }, PAID);
});

let cents = 100;
/** Each invoice its own amount: a plain transfer then matches exactly one open invoice. */
const nextAmount = () => (++cents / 100).toFixed(2);

// The faucet funds one payer at a time: its transactions take nonces in turn.
let funding: Promise<unknown> = Promise.resolve();
function serially<T>(step: () => Promise<T>): Promise<T> {
  const run = funding.then(step);
  funding = run.catch(() => {});
  return run;
}
const payer = (usdc: bigint) => serially(() => chain.payer(usdc));

async function buyer(usdc: bigint) {
  return serially(async () => {
    const account = await chain.payer(usdc);
    await fundGas(chain.rpcUrl, account.address);
    return account;
  });
}

const micro = (amount: string) => BigInt(Math.round(Number(amount) * 1e6));
const checkoutPath = (invoice: InvoiceView) => `/w/${shop.workspaceId}/i/${invoice.id}`;

async function viaX402(invoice: InvoiceView & { payUrl: string }) {
  await viaX402Paying(invoice, await payer(10_000_000n));
}

async function viaX402Paying(invoice: InvoiceView & { payUrl: string }, account: PrivateKeyAccount) {
  const response = await payV2(account)(invoice.payUrl);
  statuses.push(response.status);
  expect(response.status, await response.clone().text()).toBe(200);
}

async function viaSubmittedHash(invoice: InvoiceView) {
  const payer = await buyer(micro(invoice.amount));
  const { hash: txHash } = await transfer(chain.rpcUrl, payer, invoice.payTo as `0x${string}`, micro(invoice.amount));
  const response = await paying.app.inject({
    method: 'POST',
    url: `${checkoutPath(invoice)}/transactions`,
    payload: { network: 'base-sepolia', txHash },
  });
  statuses.push(response.statusCode);
  expect(response.statusCode, response.body).toBe(202);
}

async function viaGaslessCheckout(invoice: InvoiceView) {
  const view = (
    await paying.app.inject({ method: 'GET', url: checkoutPath(invoice), headers: { accept: 'application/json' } })
  ).json<{ recipient: string; amount: string; authorizationNonce: `0x${string}` }>();
  const response = await paying.app.inject({
    method: 'POST',
    url: `${checkoutPath(invoice)}/authorizations`,
    payload: await signCheckoutAuthorization(await payer(10_000_000n), view, view.authorizationNonce),
  });
  statuses.push(response.statusCode);
  expect(response.statusCode, response.body).toBe(202);
}

async function viaPlainTransfer(invoice: InvoiceView) {
  const payer = await buyer(micro(invoice.amount));
  await transfer(chain.rpcUrl, payer, invoice.payTo as `0x${string}`, micro(invoice.amount));
}

const KINDS = { viaX402, viaSubmittedHash, viaGaslessCheckout, viaPlainTransfer };

/** Pays `rounds` invoices of every kind at once; returns the invoices. */
async function payEveryKind(rounds: number): Promise<InvoiceView[]> {
  const paid: InvoiceView[] = [];
  await Promise.all(
    Object.values(KINDS).flatMap((pay) =>
      Array.from({ length: rounds }, async () => {
        const invoice = await shop.invoice(nextAmount());
        paid.push({ ...invoice, number: `${invoice.number} (${pay.name})` });
        await pay(invoice);
      }),
    ),
  );
  return paid;
}

/** Waits until every invoice is paid, then checks each was paid by exactly one payment. */
async function expectPaidOnce(invoices: readonly InvoiceView[]) {
  for (const invoice of invoices) {
    await vi.waitFor(async () => {
      const response = await shop.api('GET', `/invoices/${invoice.id}`);
      statuses.push(response.statusCode);
      const { status } = response.json<{ status: string }>();
      if (status !== 'paid') expect(status, `${invoice.number}: ${await whatTheServiceKnows(invoice)}`).toBe('paid');
    }, PAID);
  }
  const succeeded = await paying.database.db
    .selectFrom('payment_intents')
    .select(['invoice_id'])
    .where(
      'invoice_id',
      'in',
      invoices.map((invoice) => invoice.id),
    )
    .where('status', '=', 'succeeded')
    .execute();
  expect(succeeded.map((row) => row.invoice_id).sort()).toEqual(invoices.map((invoice) => invoice.id).sort());
}

/** An unpaid invoice's payments, the transfers received for its amount, the scan and the providers' heads. */
async function whatTheServiceKnows(invoice: InvoiceView): Promise<string> {
  const { db } = paying.database;
  const [intents, received, scan, head] = await Promise.all([
    db
      .selectFrom('payment_intents')
      .select(['method', 'status', 'failure_reason', 'tx_hash', 'block_number'])
      .where('invoice_id', '=', invoice.id)
      .execute(),
    db
      .selectFrom('received_transfers')
      .select(['tx_hash', 'block_number', 'reason'])
      .where('amount', '=', micro(invoice.amount))
      .execute(),
    db.selectFrom('transfer_scans').select('next_block').executeTakeFirst(),
    createLocalPublicClient(chain.rpcUrl).getBlockNumber(),
  ]);
  const providers = paying.services.rpcProviders().flatMap((network) => network.providers);
  return JSON.stringify({ intents, received, scanNext: scan?.next_block, head, providers }, (_key, value: unknown) =>
    typeof value === 'bigint' ? String(value) : value,
  );
}

describe('a network with two providers', () => {
  it(
    'records payments of every kind while the first provider refuses connections, and says so in /metrics and /readyz',
    { timeout: 120_000 },
    async () => {
      await first.down();
      const before = second.total();

      await expectPaidOnce(await payEveryKind(1));

      expect(second.total()).toBeGreaterThan(before);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      const metrics = (await paying.app.inject({ method: 'GET', url: '/metrics' })).body;
      const labels = (provider: FaultProxy, index: number) =>
        `network="base-sepolia",provider="${index}",host="${new URL(provider.url).host}"`;
      expect(metrics).toMatch(new RegExp(`^invoice_service_rpc_errors_total\\{${labels(first, 1)}\\} [1-9]`, 'm'));
      expect(metrics).toMatch(new RegExp(`^invoice_service_rpc_calls_total\\{${labels(second, 2)}\\} [1-9]`, 'm'));
      expect(metrics).toMatch(new RegExp(`^invoice_service_rpc_head_block\\{${labels(second, 2)}\\} [1-9]`, 'm'));
      // Skips end and the provider is tried again: wait for a moment it is being skipped.
      await vi.waitFor(async () => {
        const ready = await paying.app.inject({ method: 'GET', url: '/readyz' });
        expect(ready.statusCode).toBe(200);
        expect(ready.json<{ warnings?: string[] }>().warnings).toContainEqual(
          expect.stringContaining(`RPC 1 (${new URL(first.url).host}) of network "base-sepolia" is down`),
        );
      }, PAID);
      await first.up();
    },
  );

  it(
    'records every payment once, with no 5xx to clients, under 429s, 502s, latency and lost broadcasts',
    { timeout: 120_000 },
    async () => {
      first.set({ tooManyEvery: 4, retryAfter: '1', badGatewayEvery: 7, latencyMs: 30, loseBroadcasts: true });
      second.set({ tooManyEvery: 6, badGatewayEvery: 11, latencyMs: 10 });

      await expectPaidOnce(await payEveryKind(2));

      expect(first.faulted() + second.faulted()).toBeGreaterThan(0);
      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      first.set({});
      second.set({});
    },
  );

  it(
    'does not ask a provider whose head lags for what it cannot know yet: payments are recorded from the other',
    { timeout: 120_000 },
    async () => {
      const head = await createLocalPublicClient(chain.rpcUrl).getBlockNumber();
      // The first provider stays at today's head: it would never see these payments mined.
      first.set({ frozenAt: head });

      await expectPaidOnce([
        ...(await Promise.all(
          [viaPlainTransfer, viaSubmittedHash].map(async (pay) => {
            const invoice = await shop.invoice(nextAmount());
            await pay(invoice);
            return invoice;
          }),
        )),
      ]);

      expect(statuses.filter((status) => status >= 500)).toEqual([]);
      first.set({});
    },
  );

  it(
    'answers a payment 503 with Retry-After while no provider answers, signing nothing; the same buyer pays once one does',
    { timeout: 120_000 },
    async () => {
      const invoice = await shop.invoice(nextAmount());
      const account = await payer(10_000_000n);
      await Promise.all([first.down(), second.down()]);
      const refused = await payV2(account)(invoice.payUrl);
      await Promise.all([first.up(), second.up()]);
      expect(refused.status, paying.errorLog()).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({
        code: 'service_unavailable',
        message: expect.stringContaining('nothing was signed or sent'),
        requestId: expect.any(String),
      });
      const attempts = await paying.database.db
        .selectFrom('payment_intents')
        .select('id')
        .where('invoice_id', '=', invoice.id)
        .execute();
      expect(attempts).toEqual([]);

      await viaX402Paying(invoice, account);
      await expectPaidOnce([invoice]);
    },
  );
});
