import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { BASE_SEPOLIA_USDC, usdcBalance } from '../../src/chain/local-chain.js';
import { transferWithAuthorizationTypes } from '../../src/chain/usdc-eip3009.js';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { systemClock } from '../../src/shared/clock.js';
import { TEST_OPERATOR_WALLET, createTestApp, merchant } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { broadcast, fundGas, signTransfer, transfer } from '../support/checkout.js';
import { payV1, payV2 } from '../support/x402.js';

const chain = await createTestChain();
const { app, services, database } = await createTestApp(
  {
    API_RATE_LIMIT_PER_MINUTE: '1000000',
    CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000',
    NEW_WORKSPACE_CREDITS: '3',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  },
  systemClock,
  chain,
);
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
const runner = new JobRunner({
  db: database.db,
  connection: database.connection,
  handlers: jobHandlers(services),
  pollIntervalMs: 100,
});
await runner.start();
afterAll(() => runner.stop());
const db = database.db;
const OPERATOR = TEST_OPERATOR_WALLET.toLowerCase() as Address;

interface Purchase {
  id: string;
  credits: number;
  price: string;
  status: string;
  recipient: string;
  url: string;
  payment: { authorizationNonce: `0x${string}` | null; networks: { name: string }[] };
  lastPayment: { id: string; status: string; failureReason: string | null; transactionHash: string | null } | null;
}

let keys = 0;
async function shop() {
  const m = await merchant(app, [
    'billing:read',
    'billing:write',
    'invoices:create',
    'invoices:read',
    'payments:read',
    'webhooks:write',
  ]);
  const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': `purchase-pay-${(keys += 1)}` },
      ...(payload && { payload }),
    });
  const buy = async (packageId = 'starter') => {
    const response = await call('POST', '/credit-purchases', { packageId });
    if (response.statusCode !== 201) throw new Error(response.body);
    return response.json<Purchase>();
  };
  const read = async (id: string) => (await call('GET', `/credit-purchases/${id}`)).json<Purchase>();
  const balance = async () => (await call('GET', '/billing')).json<{ creditBalance: number }>().creditBalance;
  return { ...m, call, buy, read, balance };
}

/** Polls the purchase until its latest payment attempt finished. */
async function settled(s: Awaited<ReturnType<typeof shop>>, id: string, timeoutMs = 30_000): Promise<Purchase> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const purchase = await s.read(id);
    if (purchase.lastPayment && purchase.lastPayment.status !== 'processing') return purchase;
    if (Date.now() > deadline) throw new Error(`payment still processing: ${JSON.stringify(purchase)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function buyer(usdc = 100_000_000n) {
  const account = await chain.payer(usdc);
  await fundGas(chain.rpcUrl, account.address);
  return account;
}

async function signAuthorization(
  payer: Awaited<ReturnType<typeof buyer>>,
  order: { to: string; value: bigint; nonce: `0x${string}` },
) {
  const authorization = {
    from: payer.address,
    to: order.to as Address,
    value: order.value.toString(),
    validAfter: '0',
    validBefore: String(Math.floor(Date.now() / 1000) + 600),
    nonce: order.nonce,
  };
  const signature = await payer.signTypedData({
    domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: BASE_SEPOLIA_USDC },
    types: transferWithAuthorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: order.value, validAfter: 0n, validBefore: BigInt(authorization.validBefore) },
  });
  return { network: 'base-sepolia', authorization, signature };
}

const STARTER_PRICE = 10_000_000n;
const localUrl = (url: string) => url.replace('http://localhost:3000', `http://127.0.0.1:${port}`);

async function ledgerOf(s: Awaited<ReturnType<typeof shop>>) {
  return (await s.call('GET', '/billing/ledger?limit=100')).json<{
    entries: { kind: string; amount: number; balanceAfter: number; reference: string | null }[];
  }>().entries;
}

/** What a purchase must never leave behind: events, webhook deliveries, merchant payment reads. */
async function traces(workspaceId: string) {
  const { rows } = await sql<{ events: number; deliveries: number }>`
    SELECT (SELECT count(*)::int FROM events WHERE workspace_id = ${workspaceId}) AS events,
           (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = ${workspaceId}) AS deliveries`.execute(
    db,
  );
  return rows[0]!;
}

describe('paying a credit purchase', () => {
  it('by a signed authorization: settled by the service, credited once, nothing in the feed or webhooks', async () => {
    const s = await shop();
    expect((await s.call('PUT', '/webhook', { endpoint: 'https://127.0.0.1/hooks' })).statusCode).toBe(200);
    const purchase = await s.buy('starter');
    const payer = await buyer();
    const operatorBefore = await usdcBalance(chain.rpcUrl, OPERATOR);
    const body = await signAuthorization(payer, {
      to: purchase.recipient,
      value: STARTER_PRICE,
      nonce: purchase.payment.authorizationNonce!,
    });
    const submitted = await s.call('POST', `/credit-purchases/${purchase.id}/authorizations`, body);
    expect(submitted.statusCode).toBe(202);
    const { paymentIntentId } = submitted.json<{ paymentIntentId: string }>();

    const paid = await settled(s, purchase.id);
    expect(paid).toMatchObject({
      status: 'paid',
      network: 'base-sepolia',
      payment: { authorizationNonce: null, networks: [] },
      lastPayment: { id: paymentIntentId, status: 'succeeded', method: 'authorization', failureReason: null },
    });
    expect(await s.balance()).toBe(3 + 100);
    expect(await usdcBalance(chain.rpcUrl, OPERATOR)).toBe(operatorBefore + STARTER_PRICE);
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(100_000_000n - STARTER_PRICE);
    expect((await ledgerOf(s))[0]).toMatchObject({
      kind: 'purchase',
      amount: 100,
      balanceAfter: 103,
      reference: purchase.id,
    });
    // The workspace's own order: no change-feed event, no webhook, no merchant payment read, no search hit.
    expect(await traces(s.workspaceId)).toEqual({ events: 0, deliveries: 0 });
    expect((await s.call('GET', '/changes')).json()).toMatchObject({ events: [] });
    expect((await s.call('GET', `/payment-intents/${paymentIntentId}`)).statusCode).toBe(404);
    expect((await s.call('GET', `/invoice-search?q=${paid.lastPayment!.transactionHash}`)).json()).toMatchObject({
      invoices: [],
    });

    // Paying it again: 409 purchase_paid, on every path.
    const again = await s.call('POST', `/credit-purchases/${purchase.id}/authorizations`, body);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'purchase_paid', requestId: expect.any(String) });
    const x402 = await fetch(localUrl(purchase.url));
    expect(x402.status).toBe(409);
    expect(await x402.json()).toMatchObject({ code: 'purchase_paid' });
  });

  it('by a submitted transaction hash: found, confirmed and credited; a wrong amount credits nothing', async () => {
    const s = await shop();
    const payer = await buyer();
    const short = await s.buy('starter');
    const wrong = await transfer(chain.rpcUrl, payer, OPERATOR, STARTER_PRICE - 1n);
    expect(
      (
        await s.call('POST', `/credit-purchases/${short.id}/transactions`, {
          network: 'base-sepolia',
          txHash: wrong.hash,
        })
      ).statusCode,
    ).toBe(202);
    expect(await settled(s, short.id)).toMatchObject({
      status: 'open',
      lastPayment: { status: 'failed', failureReason: 'amount_mismatch' },
    });
    expect(await s.balance()).toBe(3);

    const sent = await transfer(chain.rpcUrl, payer, OPERATOR, STARTER_PRICE);
    const submitted = await s.call('POST', `/credit-purchases/${short.id}/transactions`, {
      network: 'base-sepolia',
      txHash: sent.hash,
    });
    expect(submitted.statusCode).toBe(202);
    expect(await settled(s, short.id)).toMatchObject({
      status: 'paid',
      lastPayment: { status: 'succeeded', method: 'transaction', transactionHash: sent.hash.toLowerCase() },
    });
    expect(await s.balance()).toBe(103);

    // The same transfer pays one thing only: not a second purchase, not an invoice of the operator's.
    const other = await s.buy('starter');
    const reused = await s.call('POST', `/credit-purchases/${other.id}/transactions`, {
      network: 'base-sepolia',
      txHash: sent.hash,
    });
    expect(reused.statusCode).toBe(400);
    expect(reused.json()).toMatchObject({ code: 'invalid_payment', reason: 'already_used' });
  });

  it('with an unmodified x402 client (v2 and v1) at the purchase url: an agent tops up its own credits', async () => {
    const s = await shop();
    for (const pay of [payV2, payV1]) {
      const purchase = await s.buy('starter');
      const before = await s.balance();
      const response = await pay(await chain.payer(20_000_000n))(localUrl(purchase.url));
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        creditPurchase: { id: purchase.id, status: 'paid', credits: 100 },
        payment: { status: 'succeeded', method: 'authorization' },
      });
      expect(await s.balance()).toBe(before + 100);
    }
    // Without a payment, the url asks for the price to the operator wallet, in both protocol versions.
    const open = await s.buy('growth');
    const required = await fetch(localUrl(open.url));
    expect(required.status).toBe(402);
    const v1 = await required.json();
    expect(v1).toMatchObject({
      x402Version: 1,
      accepts: [
        {
          maxAmountRequired: '90000000',
          payTo: open.recipient,
          resource: localUrl(open.url).replace(`127.0.0.1:${port}`, 'localhost:3000'),
        },
      ],
    });
    const v2 = JSON.parse(Buffer.from(required.headers.get('payment-required')!, 'base64').toString());
    expect(v2).toMatchObject({ accepts: [{ amount: '90000000', payTo: open.recipient, network: 'eip155:84532' }] });
    expect(await traces(s.workspaceId)).toEqual({ events: 0, deliveries: 0 });
  });

  it('credits once when two payments race: the second one is recorded as an overpayment, not credited', async () => {
    const s = await shop();
    const purchase = await s.buy('starter');
    const [first, second] = [await buyer(), await buyer()];
    const sent = await transfer(chain.rpcUrl, second, OPERATOR, STARTER_PRICE);
    const body = await signAuthorization(first, {
      to: purchase.recipient,
      value: STARTER_PRICE,
      nonce: purchase.payment.authorizationNonce!,
    });
    const [byHash, byAuthorization] = await Promise.all([
      s.call('POST', `/credit-purchases/${purchase.id}/transactions`, { network: 'base-sepolia', txHash: sent.hash }),
      s.call('POST', `/credit-purchases/${purchase.id}/authorizations`, body),
    ]);
    expect(byHash.statusCode).toBe(202);
    // The authorization may start before the transfer is found (202) or after (409 purchase_processing).
    expect([202, 409]).toContain(byAuthorization.statusCode);
    const deadline = Date.now() + 30_000;
    let intents: { status: string; overpayment: boolean }[] = [];
    while (Date.now() < deadline) {
      intents = await db
        .selectFrom('payment_intents')
        .select(['status', 'overpayment'])
        .where('credit_purchase_id', '=', purchase.id)
        .execute();
      if (intents.every((intent) => intent.status !== 'processing')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const succeeded = intents.filter((intent) => intent.status === 'succeeded');
    expect(succeeded.filter((intent) => !intent.overpayment)).toHaveLength(1);
    expect(succeeded.length).toBe(byAuthorization.statusCode === 202 ? 2 : 1);
    expect((await s.read(purchase.id)).status).toBe('paid');
    expect(await s.balance()).toBe(103);
    expect((await ledgerOf(s)).filter((entry) => entry.kind === 'purchase')).toHaveLength(1);
    // An overpayment of a purchase is the operator's to settle: it is not the merchant's issue.
    expect((await s.call('GET', '/issues')).json()).not.toMatchObject({
      issues: expect.arrayContaining([expect.objectContaining({ type: 'overpayments_received' })]),
    });
  });

  it("refuses an invoice's authorization on a purchase, and a purchase's on an invoice", async () => {
    // The operator's own workspace: its invoices pay the same wallet as purchases, so only the nonce tells them apart.
    const s = await shop();
    await db.updateTable('workspaces').set({ wallet_address: OPERATOR }).where('id', '=', s.workspaceId).execute();
    await db
      .updateTable('api_keys')
      .set({ recipient_address: OPERATOR })
      .where('workspace_id', '=', s.workspaceId)
      .execute();
    const invoice = (await s.call('POST', '/invoices', { amount: '10' })).json<{ id: string }>();
    const details = (
      await app.inject({
        method: 'GET',
        url: `/w/${s.workspaceId}/i/${invoice.id}`,
        headers: { accept: 'application/json' },
      })
    ).json<{ authorizationNonce: `0x${string}` }>();
    const purchase = await s.buy('starter');
    const payer = await buyer();
    const forInvoice = await signAuthorization(payer, {
      to: OPERATOR,
      value: STARTER_PRICE,
      nonce: details.authorizationNonce,
    });
    const onPurchase = await s.call('POST', `/credit-purchases/${purchase.id}/authorizations`, forInvoice);
    expect(onPurchase.statusCode).toBe(400);
    expect(onPurchase.json()).toMatchObject({ code: 'invalid_payment', message: expect.stringContaining('nonce') });

    const forPurchase = await signAuthorization(payer, {
      to: OPERATOR,
      value: STARTER_PRICE,
      nonce: purchase.payment.authorizationNonce!,
    });
    const onInvoice = await app.inject({
      method: 'POST',
      url: `/w/${s.workspaceId}/i/${invoice.id}/authorizations`,
      payload: forPurchase,
    });
    expect(onInvoice.statusCode).toBe(400);
    expect(onInvoice.json()).toMatchObject({ code: 'invalid_payment' });
    expect((await s.read(purchase.id)).status).toBe('open');
  });

  it('refuses another recipient and an expired purchase; a transfer sent in time still counts after the deadline', async () => {
    const s = await shop();
    const purchase = await s.buy('starter');
    const payer = await buyer();
    const elsewhere = await signAuthorization(payer, {
      to: payer.address,
      value: STARTER_PRICE,
      nonce: purchase.payment.authorizationNonce!,
    });
    const refused = await s.call('POST', `/credit-purchases/${purchase.id}/authorizations`, elsewhere);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'pay_to_mismatch', reason: 'recipient_mismatch' });

    // Submitted before the deadline, sent and found after it: it was started in time, so it counts.
    const signed = await signTransfer(chain.rpcUrl, payer, OPERATOR, STARTER_PRICE);
    const submitted = await s.call('POST', `/credit-purchases/${purchase.id}/transactions`, {
      network: 'base-sepolia',
      txHash: signed.hash,
    });
    expect(submitted.statusCode).toBe(202);
    const claim = await db
      .selectFrom('payment_intents')
      .select('submitted_at')
      .where('credit_purchase_id', '=', purchase.id)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('credit_purchases')
      .set({ expires_at: new Date(claim.submitted_at.getTime() + 1) })
      .where('id', '=', purchase.id)
      .execute();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await s.read(purchase.id)).status).toBe('expired');
    const late = await s.call('POST', `/credit-purchases/${purchase.id}/authorizations`, elsewhere);
    expect(late.statusCode).toBe(409);
    expect(late.json()).toMatchObject({ code: 'purchase_expired' });
    await broadcast(chain.rpcUrl, signed.raw);
    expect(await settled(s, purchase.id)).toMatchObject({ status: 'paid' });
    expect(await s.balance()).toBe(103);
  });

  it('keeps the ledger equal to the balance through a mixed run', async () => {
    const s = await shop();
    const payer = await buyer();
    const purchase = await s.buy('starter');
    await s.call(
      'POST',
      `/credit-purchases/${purchase.id}/authorizations`,
      await signAuthorization(payer, {
        to: purchase.recipient,
        value: STARTER_PRICE,
        nonce: purchase.payment.authorizationNonce!,
      }),
    );
    await settled(s, purchase.id);
    for (let index = 0; index < 3; index += 1)
      expect((await s.call('POST', '/invoices', { amount: '1' })).statusCode).toBe(201);
    const ledger = await ledgerOf(s);
    const balance = await s.balance();
    expect(ledger.reduce((sum, entry) => sum + entry.amount, 0)).toBe(balance);
    expect(ledger[0]!.balanceAfter).toBe(balance);
    expect(new Set(ledger.map((entry) => entry.kind))).toEqual(new Set(['grant', 'purchase', 'invoice.created']));
  });
});
