import { afterAll, describe, expect, it } from 'vitest';
import { getAddress, keccak256, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { BASE_SEPOLIA_USDC, createLocalPublicClient, usdcBalance } from '../../src/chain/local-chain.js';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers } from '../../src/main/jobs.js';
import { systemClock } from '../../src/shared/clock.js';
import { createKey, createTestApp, createWorkspace, newWallet, signIn } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import {
  broadcast,
  fundGas,
  installOtherToken,
  settledPayment,
  signCheckoutAuthorization as signAuthorization,
  signTransfer,
  transfer,
} from '../support/checkout.js';
import { checkoutNonce } from '../../src/modules/checkout/checkout.js';
import { insertEndpoint } from '../../src/modules/webhook-endpoint/webhook-endpoint.repo.js';
import type { WorkspaceId } from '../../src/shared/ids.js';

const chain = await createTestChain();
const { app, services, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000' },
  systemClock,
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

const JSON_ACCEPT = { accept: 'application/json' };
let keyCounter = 0;

async function openShop(name = 'Shop') {
  const wallet = newWallet();
  const cookie = await signIn(app, wallet);
  const workspaceId = await createWorkspace(app, cookie, name);
  const apiKey = (
    await createKey(app, cookie, workspaceId, ['invoices:create', 'invoices:read', 'payments:read', 'billing:read'])
  ).json<{ secret: string }>().secret;
  const headers = { authorization: `Bearer ${apiKey}` };
  return {
    wallet,
    workspaceId,
    headers,
    async invoice(amount = '2.5') {
      keyCounter += 1;
      const response = await app.inject({
        method: 'POST',
        url: `/w/${workspaceId}/v1/invoices`,
        headers: { ...headers, 'idempotency-key': `checkout-${keyCounter}-${Date.now()}` },
        payload: { amount },
      });
      if (response.statusCode !== 201) throw new Error(response.body);
      const invoice = response.json<{ id: string; number: string; amount: string; linkVersion: number }>();
      return { ...invoice, path: `/w/${workspaceId}/i/${invoice.id}` };
    },
  };
}

const shop = await openShop();

async function buyer(usdc = 10_000_000n) {
  const account = await chain.payer(usdc);
  await fundGas(chain.rpcUrl, account.address);
  return account;
}

const details = async (path: string) => (await app.inject({ method: 'GET', url: path, headers: JSON_ACCEPT })).json();
const submitHash = (path: string, txHash: string, network = 'base-sepolia') =>
  app.inject({ method: 'POST', url: `${path}/transactions`, payload: { network, txHash } });

describe('GET /w/<ws>/i/<id>: public payment details', () => {
  it('says the merchant is notified of a payment only while their webhook endpoint is enabled', async () => {
    const other = await openShop('Notified shop');
    const invoice = await other.invoice('1');
    expect((await details(invoice.path)).merchantNotified).toBe(false);
    const workspaceId = other.workspaceId as WorkspaceId;
    const at = new Date();
    await insertEndpoint(services.db, workspaceId, {
      url: 'https://hooks.example/in',
      enabled: true,
      secret: 'whsec_x',
      at,
    });
    expect((await details(invoice.path)).merchantNotified).toBe(true);
    await services.db
      .updateTable('webhook_endpoints')
      .set({ enabled: false, paused_at: at })
      .where('workspace_id', '=', workspaceId)
      .execute();
    expect((await details(invoice.path)).merchantNotified).toBe(false);
  });

  it('shows merchant, amount, recipient, deadline, networks with an EIP-681 URI and the nonce bound to the link version', async () => {
    const invoice = await shop.invoice('12.5');
    const response = await app.inject({ method: 'GET', url: invoice.path, headers: JSON_ACCEPT });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json();
    const recipient = getAddress(shop.wallet.address);
    const nonce = checkoutNonce(invoice.id, 1);
    expect(body).toEqual({
      invoiceId: invoice.id,
      number: invoice.number,
      merchantName: 'Shop',
      merchantDescription: '',
      merchantSupportContact: null,
      merchantAccentColor: null,
      merchantNotified: false,
      status: 'open',
      amount: '12.500000',
      description: null,
      currency: 'USDC',
      recipient,
      recipientChanged: false,
      expiresAt: expect.any(String),
      serverTime: expect.any(String),
      linkVersion: 1,
      authorizationNonce: nonce,
      networks: [
        {
          name: 'base-sepolia',
          chainId: 84532,
          token: BASE_SEPOLIA_USDC,
          tokenName: 'USDC',
          tokenVersion: '2',
          confirmations: 1,
          paymentUri: `ethereum:${BASE_SEPOLIA_USDC}@84532/transfer?address=${recipient}&uint256=12500000`,
          gasless: true,
        },
      ],
      successUrl: null,
      cancelUrl: null,
      payment: null,
      receipt: null,
    });
    expect(new Date(body.expiresAt).getTime() - new Date(body.serverTime).getTime()).toBeGreaterThan(3590_000);
  });

  it('answers a browser with the checkout page (test/web/checkout-*.test.ts), escaping the merchant name', async () => {
    const evil = await openShop('<script>alert(1)</script> & Co');
    const invoice = await evil.invoice('1');
    const response = await app.inject({
      method: 'GET',
      url: invoice.path,
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['content-security-policy']).toContain("default-src 'none'");
    expect(response.headers.vary).toBe('Accept');
    expect(response.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(response.body).not.toContain('<script>');
    expect(response.body).toContain(invoice.number);
    // Without an Accept header (curl, scripts): JSON.
    expect((await app.inject({ method: 'GET', url: invoice.path })).json()).toMatchObject({ invoiceId: invoice.id });
  });

  it('answers unknown, foreign and malformed ids with the same 404, on every checkout endpoint', async () => {
    const other = await openShop('Other');
    const foreign = await other.invoice('1');
    const own = await shop.invoice('1');
    const paths = [
      `/w/${shop.workspaceId}/i/inv_00000000000000000000000000`,
      `/w/${shop.workspaceId}/i/${foreign.id}`,
      `/w/${other.workspaceId.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}/i/${own.id}`,
      `/w/not-a-workspace/i/${own.id}`,
      `/w/${shop.workspaceId}/i/x`,
    ];
    const bodies = [];
    for (const path of paths) {
      for (const request of [
        { method: 'GET' as const, url: path, headers: JSON_ACCEPT },
        {
          method: 'POST' as const,
          url: `${path}/transactions`,
          payload: { network: 'base-sepolia', txHash: `0x${'ab'.repeat(32)}` },
        },
      ]) {
        const response = await app.inject(request);
        expect(response.statusCode).toBe(404);
        const { code, message } = response.json();
        bodies.push({ code, message });
      }
    }
    expect(new Set(bodies.map((body) => JSON.stringify(body)))).toEqual(
      new Set([JSON.stringify({ code: 'not_found', message: 'No such invoice.' })]),
    );
  });

  it('is in the OpenAPI document under Checkout, without an API key', async () => {
    const document = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const [path, method] of [
      ['/w/{workspaceId}/i/{invoiceId}', 'get'],
      ['/w/{workspaceId}/i/{invoiceId}/transactions', 'post'],
      ['/w/{workspaceId}/i/{invoiceId}/authorizations', 'post'],
    ] as const) {
      const operation = document.paths[path][method];
      expect(operation.tags).toEqual(['Checkout']);
      expect(operation.security).toEqual([]);
    }
  });
});

describe('POST /w/<ws>/i/<id>/transactions: a plain USDC transfer', () => {
  it('pays the invoice once its transfer is found and verified, with a receipt naming the payer and the transaction', async () => {
    const invoice = await shop.invoice('2.5');
    const payer = await buyer();
    const sent = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_500_000n);

    const response = await submitHash(invoice.path, sent.hash.toUpperCase().replace('0X', '0x'));
    expect(response.statusCode).toBe(202);
    const { paymentIntentId, status } = response.json();
    expect(status).toBe('processing');
    expect(paymentIntentId).toMatch(/^pi_/);

    const settled = await settledPayment(app, invoice.path);
    expect(settled).toMatchObject({
      status: 'paid',
      networks: [],
      authorizationNonce: null,
      payment: {
        id: paymentIntentId,
        status: 'succeeded',
        failureReason: null,
        method: 'transaction',
        transactionHash: sent.hash,
      },
    });
    const receipt = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}/receipt`,
      headers: shop.headers,
    });
    expect(receipt.json()).toMatchObject({
      amount: '2.500000',
      payer: payer.address.toLowerCase(),
      transactionHash: sent.hash,
      paymentIntentId,
    });
    const events = await database.db
      .selectFrom('events')
      .select('type')
      .where('invoice_id', '=', invoice.id)
      .orderBy('id')
      .execute();
    expect(events.map((event) => event.type)).toEqual([
      'invoice.created',
      'invoice.processing',
      'payment_intent.processing',
      'invoice.paid',
      'payment_intent.succeeded',
    ]);

    // The same transfer cannot pay a second invoice, and the paid invoice takes no second payment.
    const second = await shop.invoice('2.5');
    const reuse = await submitHash(second.path, sent.hash);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json()).toMatchObject({ code: 'invalid_payment', reason: 'already_used' });
    expect(await details(second.path)).toMatchObject({ status: 'open', payment: null });
    const again = await submitHash(invoice.path, sent.hash);
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('invoice_already_paid');
  });

  it('holds nothing with a submitted hash: the invoice stays open, another transfer or an authorization pays it', async () => {
    const invoice = await shop.invoice('1');
    const payer = await buyer();
    // Signed, never sent: the network has not seen it (and would not, for a made-up hash).
    const { hash } = await signTransfer(chain.rpcUrl, payer, shop.wallet.address, 1_000_000n);
    const claim = await submitHash(invoice.path, hash);
    expect(claim.statusCode).toBe(202);
    // The same hash again is the same attempt, not a second one.
    expect((await submitHash(invoice.path, hash)).json()).toEqual(claim.json());
    await new Promise((resolve) => setTimeout(resolve, 500)); // the job has looked for it
    expect(await details(invoice.path)).toMatchObject({ status: 'open', payment: { status: 'processing' } });

    const view = await details(invoice.path);
    const paying = await app.inject({
      method: 'POST',
      url: `${invoice.path}/authorizations`,
      payload: await signAuthorization(await chain.payer(10_000_000n), view, view.authorizationNonce),
    });
    expect(paying.statusCode).toBe(202);
    expect(await settledPayment(app, invoice.path)).toMatchObject({
      status: 'paid',
      payment: { id: paying.json().paymentIntentId, status: 'succeeded', method: 'authorization' },
    });
    // The claim never reached the merchant's feed.
    const events = await database.db
      .selectFrom('events')
      .select(['type', 'payment_intent_id'])
      .where('invoice_id', '=', invoice.id)
      .execute();
    expect(events.map((event) => event.payment_intent_id)).not.toContain(claim.json().paymentIntentId);
  });

  it('looks for at most five hashes no node knows of one invoice at once; a known one is always taken', async () => {
    const invoice = await shop.invoice('1');
    for (let i = 0; i < 5; i += 1)
      expect((await submitHash(invoice.path, `0x${(0xa0 + i).toString(16).repeat(32)}`)).statusCode).toBe(202);
    const sixth = await submitHash(invoice.path, `0x${'b9'.repeat(32)}`);
    expect(sixth.statusCode).toBe(429);
    // Met only by a hash no node knows either: the buyer reads, next to the hash field, to check it.
    expect(sixth.json()).toMatchObject({
      code: 'rate_limited',
      message: expect.stringMatching(/^This transaction is not on the network, and 5 submitted .* Check the hash/),
    });
    expect(sixth.headers['retry-after']).toBe('60');
    // The bound holds back hashes no node knows: the buyer's real transfer is taken all the same, and pays.
    const payer = await buyer();
    const { hash } = await transfer(chain.rpcUrl, payer, shop.wallet.address, 1_000_000n);
    expect((await submitHash(invoice.path, hash)).statusCode).toBe(202);
    expect(await settledPayment(app, invoice.path)).toMatchObject({
      status: 'paid',
      payment: { status: 'succeeded', transactionHash: hash.toLowerCase() },
    });
  });

  it('looks for at most five unseen hashes of one invoice at once; cancel still works', async () => {
    const invoice = await shop.invoice('1');
    for (let i = 0; i < 5; i += 1)
      expect((await submitHash(invoice.path, `0x${(0xc0 + i).toString(16).repeat(32)}`)).statusCode).toBe(202);
    expect((await submitHash(invoice.path, `0x${'d9'.repeat(32)}`)).statusCode).toBe(429);
    const cancel = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}/cancel`,
      headers: shop.headers,
    });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json().status).toBe('cancelled');
  });

  it('records a second transfer that lands for a paid invoice as an overpayment: in the feed, the timeline and GET /issues', async () => {
    const invoice = await shop.invoice('1.25');
    const [first, second] = [await buyer(), await buyer()];
    // Two buyers (or one, twice) pay the same link: both hashes are submitted while the invoice is open.
    const signed = [
      await signTransfer(chain.rpcUrl, first, shop.wallet.address, 1_250_000n),
      await signTransfer(chain.rpcUrl, second, shop.wallet.address, 1_250_000n),
    ];
    const intents: string[] = [];
    for (const { hash } of signed) intents.push((await submitHash(invoice.path, hash)).json().paymentIntentId);
    for (const { raw } of signed) await broadcast(chain.rpcUrl, raw);

    const read = (id: string) =>
      app.inject({ method: 'GET', url: `/w/${shop.workspaceId}/v1/payment-intents/${id}`, headers: shop.headers });
    const finished = async (id: string) => {
      for (let tries = 0; tries < 200; tries += 1) {
        const intent = (await read(id)).json();
        if (intent.status !== 'processing') return intent;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`payment ${id} still processing`);
    };
    const outcomes = [await finished(intents[0]!), await finished(intents[1]!)];
    expect(outcomes.map((intent) => intent.status)).toEqual(['succeeded', 'succeeded']);
    const [paidBy, extra] = outcomes[0].overpayment ? [outcomes[1], outcomes[0]] : [outcomes[0], outcomes[1]];
    expect(paidBy.overpayment).toBe(false);
    expect(extra).toMatchObject({ overpayment: true, amount: '1.250000', invoiceId: invoice.id });

    // The receipt is the payment that paid it; the invoice was paid once (one success fee, one webhook kind).
    const receipt = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}/receipt`,
      headers: shop.headers,
    });
    expect(receipt.json().paymentIntentId).toBe(paidBy.id);
    const events = await database.db
      .selectFrom('events')
      .select(['type', 'payment_intent_id'])
      .where('invoice_id', '=', invoice.id)
      .orderBy('id')
      .execute();
    expect(events.filter((event) => event.type === 'payment_intent.succeeded')).toEqual([
      { type: 'payment_intent.succeeded', payment_intent_id: paidBy.id },
    ]);
    expect(events.filter((event) => event.type === 'invoice.paid')).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: 'payment_intent.overpaid', payment_intent_id: extra.id });

    const timeline = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}/timeline`,
      headers: shop.headers,
    });
    expect(timeline.json().records.at(-1)).toMatchObject({ kind: 'overpayment_received', paymentIntentId: extra.id });
    const issues = await app.inject({ method: 'GET', url: `/w/${shop.workspaceId}/v1/issues`, headers: shop.headers });
    expect(issues.json().issues).toContainEqual(
      expect.objectContaining({ kind: 'overpayments_received', severity: 'warning', count: 1 }),
    );
  });

  const otherToken = '0x000000000000000000000000000000000000bEEF' as Address;
  const failures: {
    name: string;
    reason: string;
    send: (payer: Awaited<ReturnType<typeof buyer>>) => Promise<{ hash: `0x${string}`; status: string }>;
  }[] = [
    {
      name: 'a wrong amount',
      reason: 'amount_mismatch',
      send: (payer) => transfer(chain.rpcUrl, payer, shop.wallet.address, 2_400_000n),
    },
    {
      name: 'another recipient',
      reason: 'recipient_mismatch',
      send: (payer) => transfer(chain.rpcUrl, payer, privateKeyToAccount(generatePrivateKey()).address, 2_500_000n),
    },
    {
      name: 'another token',
      reason: 'wrong_token',
      send: async (payer) => {
        await installOtherToken(chain.rpcUrl, otherToken, payer, 5_000_000n);
        return transfer(chain.rpcUrl, payer, shop.wallet.address, 2_500_000n, otherToken);
      },
    },
    {
      name: 'a reverted transfer',
      reason: 'reverted',
      send: async (payer) => {
        const sent = await transfer(chain.rpcUrl, payer, shop.wallet.address, 20_000_000n);
        expect(sent.status).toBe('reverted');
        return sent;
      },
    },
  ];

  it.each(failures)('fails $name with $reason and leaves the invoice payable', async ({ reason, send }) => {
    const invoice = await shop.invoice('2.5');
    const payer = await buyer();
    const sent = await send(payer);
    const response = await submitHash(invoice.path, sent.hash);
    expect(response.statusCode).toBe(202);
    const settled = await settledPayment(app, invoice.path);
    expect(settled).toMatchObject({
      status: 'open',
      payment: { id: response.json().paymentIntentId, status: 'failed', failureReason: reason },
    });
    expect(settled.networks).toHaveLength(1);
    // A transfer that does not pay the invoice never held it: no payment reached the merchant's feed. One
    // of another amount reached the wallet all the same: it is recorded for the merchant to resolve.
    const events = await database.db
      .selectFrom('events')
      .select('type')
      .where('invoice_id', '=', invoice.id)
      .orderBy('id')
      .execute();
    expect(events.map((event) => event.type)).toEqual(
      reason === 'amount_mismatch' ? ['invoice.created', 'transfer.unmatched'] : ['invoice.created'],
    );

    // Payable again: the right transfer now pays it.
    const right = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_500_000n);
    expect((await submitHash(invoice.path, right.hash)).statusCode).toBe(202);
    expect(await settledPayment(app, invoice.path)).toMatchObject({ status: 'paid', payment: { status: 'succeeded' } });
  });

  it('lets one transfer pay one invoice when two invoices claim it at once: the other fails already_used', async () => {
    const [first, second] = [await shop.invoice('3'), await shop.invoice('3')];
    const payer = await buyer();
    const signed = await signTransfer(chain.rpcUrl, payer, shop.wallet.address, 3_000_000n);
    // Both are submitted before the transaction exists, so neither check at submission can know.
    expect((await submitHash(first.path, signed.hash)).statusCode).toBe(202);
    expect((await submitHash(second.path, signed.hash)).statusCode).toBe(202);
    await broadcast(chain.rpcUrl, signed.raw);
    const outcomes = [await settledPayment(app, first.path), await settledPayment(app, second.path)];
    const statuses = outcomes.map((outcome) => `${outcome.status}/${outcome.payment.failureReason}`).sort();
    expect(statuses).toEqual(['open/already_used', 'paid/null']);
    const claims = await database.db
      .selectFrom('payment_claims')
      .selectAll()
      .where('tx_hash', '=', signed.hash.toLowerCase())
      .execute();
    expect(claims).toHaveLength(1);
  });

  it('refuses a malformed hash, an unknown network and unknown fields before recording anything', async () => {
    const invoice = await shop.invoice('1');
    const cases = [
      [{ network: 'base-sepolia', txHash: '0x1234' }, 400, 'invalid_request'],
      [{ network: 'base-sepolia', txHash: `0x${'zz'.repeat(32)}` }, 400, 'invalid_request'],
      [{ network: 'mainnet', txHash: `0x${'ab'.repeat(32)}` }, 400, 'unsupported_network'],
      [{ network: 'base-sepolia', txHash: `0x${'ab'.repeat(32)}`, amount: '1' }, 400, 'unknown_field'],
    ] as const;
    for (const [payload, status, code] of cases) {
      const response = await app.inject({ method: 'POST', url: `${invoice.path}/transactions`, payload });
      expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
      expect(response.json().requestId).toBe(response.headers['x-request-id']);
    }
    expect(await details(invoice.path)).toMatchObject({ status: 'open', payment: null });
  });
});

describe('POST /w/<ws>/i/<id>/authorizations: a gasless EIP-3009 payment', () => {
  it('settles an authorization signed with the bound nonce: the buyer pays no gas, the invoice is paid', async () => {
    const invoice = await shop.invoice('4');
    const payer = await chain.payer(10_000_000n);
    const view = await details(invoice.path);
    const response = await app.inject({
      method: 'POST',
      url: `${invoice.path}/authorizations`,
      payload: await signAuthorization(payer, view, view.authorizationNonce),
    });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ paymentIntentId: expect.stringMatching(/^pi_/), status: 'processing' });
    const settled = await settledPayment(app, invoice.path);
    expect(settled).toMatchObject({ status: 'paid', payment: { status: 'succeeded', method: 'authorization' } });
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(6_000_000n);
    expect(await createLocalPublicClient(chain.rpcUrl).getBalance({ address: payer.address })).toBe(0n);

    // The relayer's settlement is nobody's plain transfer: its hash is refused for any other invoice.
    const other = await shop.invoice('7');
    const reuse = await submitHash(other.path, settled.payment.transactionHash);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json()).toMatchObject({ code: 'invalid_payment', reason: 'already_used' });
  });

  it('refuses an authorization to another recipient with 403 pay_to_mismatch, recording nothing', async () => {
    const invoice = await shop.invoice('1');
    const view = await details(invoice.path);
    const elsewhere = { ...view, recipient: privateKeyToAccount(generatePrivateKey()).address };
    const response = await app.inject({
      method: 'POST',
      url: `${invoice.path}/authorizations`,
      payload: await signAuthorization(await chain.payer(10_000_000n), elsewhere, view.authorizationNonce),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'pay_to_mismatch', reason: 'recipient_mismatch' });
    expect(await details(invoice.path)).toMatchObject({ status: 'open', payment: null });
  });

  it('refuses an authorization for an older link version, or with a nonce that is not the checkout nonce', async () => {
    const invoice = await shop.invoice('1.5');
    const payer = await chain.payer(10_000_000n);
    const before = await details(invoice.path);
    const renewed = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}/renew`,
      headers: shop.headers,
      payload: {},
    });
    expect(renewed.json().linkVersion).toBe(2);
    const after = await details(invoice.path);
    expect(after.authorizationNonce).not.toBe(before.authorizationNonce);

    const stale = await app.inject({
      method: 'POST',
      url: `${invoice.path}/authorizations`,
      payload: await signAuthorization(payer, after, before.authorizationNonce),
    });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toMatchObject({
      code: 'invalid_payment',
      reason: 'expired',
      message: expect.stringContaining('older payment link'),
    });
    const random = await app.inject({
      method: 'POST',
      url: `${invoice.path}/authorizations`,
      payload: await signAuthorization(payer, after, keccak256('0x01')),
    });
    expect(random.statusCode).toBe(400);
    expect(random.json().code).toBe('invalid_payment');
    expect(await details(invoice.path)).toMatchObject({ status: 'open', payment: null });
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(10_000_000n);

    const current = await app.inject({
      method: 'POST',
      url: `${invoice.path}/authorizations`,
      payload: await signAuthorization(payer, after, after.authorizationNonce),
    });
    expect(current.statusCode).toBe(202);
    expect(await settledPayment(app, invoice.path)).toMatchObject({ status: 'paid' });
  });
});
