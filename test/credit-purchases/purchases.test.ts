import { sql } from 'kysely';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Network } from '../../src/chain/networks.js';
import { NO_CHAIN } from '../../src/main/services.js';
import type { CreditPurchaseId } from '../../src/modules/credit-purchases/index.js';
import { checkoutNonce, eip681TransferUri } from '../../src/modules/checkout/checkout.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { BASE_URL, ORIGIN, TEST_OPERATOR_WALLET, createTestApp, merchant } from '../support/app.js';

const NETWORK: Network = {
  name: 'base-sepolia',
  chainId: 84532,
  rpcUrls: ['http://127.0.0.1:1'],
  usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  confirmations: 2,
  tokenName: 'USDC',
  tokenVersion: '2',
};
const clock = new ManualClock();
const { app, services, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: '10' }, clock, {
  ...NO_CHAIN,
  networks: [NETWORK],
});
const db = database.db;

interface Purchase {
  id: string;
  status: string;
  createdAt: string;
  expiresAt: string;
  payment: { authorizationNonce: string | null; networks: unknown[] };
  [field: string]: unknown;
}

async function shop(permissions = ['billing:read', 'billing:write', 'invoices:create']) {
  const m = await merchant(app, permissions);
  const call = (method: 'GET' | 'POST', path: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, ...headers },
      ...(payload !== undefined && { payload: payload as object }),
    });
  const buy = (packageId: string, key: string) =>
    call('POST', '/credit-purchases', { packageId }, { 'idempotency-key': key });
  return { ...m, call, buy };
}

async function counts(workspaceId: string) {
  const { rows } = await sql<{
    purchases: number;
    invoices: number;
    events: number;
    deliveries: number;
    seq: string;
    balance: string;
  }>`
    SELECT (SELECT count(*)::int FROM credit_purchases WHERE workspace_id = ${workspaceId}) AS purchases,
           (SELECT count(*)::int FROM invoices WHERE workspace_id = ${workspaceId}) AS invoices,
           (SELECT count(*)::int FROM events WHERE workspace_id = ${workspaceId}) AS events,
           (SELECT count(*)::int FROM webhook_deliveries WHERE workspace_id = ${workspaceId}) AS deliveries,
           (SELECT invoice_seq::text FROM workspaces WHERE id = ${workspaceId}) AS seq,
           (SELECT balance::text FROM credit_accounts WHERE workspace_id = ${workspaceId}) AS balance`.execute(db);
  return rows[0]!;
}

describe('POST /credit-purchases', () => {
  it('makes an order for the package, payable to the operator wallet for an hour, with the payment details', async () => {
    const s = await shop();
    const response = await s.buy('growth', 'purchase-growth-1');
    expect(response.statusCode).toBe(201);
    const purchase = response.json<Purchase>();
    const now = clock.now();
    expect(purchase).toEqual({
      id: expect.stringMatching(/^cp_[0-9a-hjkmnp-tv-z]{26}$/),
      packageId: 'growth',
      credits: 1000,
      price: '90.000000',
      currency: 'USDC',
      status: 'open',
      recipient: getAddress(TEST_OPERATOR_WALLET),
      network: null,
      expiresAt: new Date(now.getTime() + 3600_000).toISOString(),
      createdAt: now.toISOString(),
      paidAt: null,
      url: `${BASE_URL}/w/${s.workspaceId}/x402/credit-purchases/${purchase.id}`,
      lastPayment: null,
      payment: {
        // The same nonce and URI the checkout of an invoice would give for this order.
        authorizationNonce: checkoutNonce(purchase.id, 1),
        networks: [
          {
            name: 'base-sepolia',
            chainId: 84532,
            token: NETWORK.usdc,
            tokenName: 'USDC',
            tokenVersion: '2',
            confirmations: 2,
            paymentUri: eip681TransferUri(NETWORK.usdc, 84532, TEST_OPERATOR_WALLET, 90_000_000n),
          },
        ],
      },
    });
    expect((await s.call('GET', `/credit-purchases/${purchase.id}`)).json()).toEqual(purchase);
    const stored = await db
      .selectFrom('credit_purchases')
      .selectAll()
      .where('id', '=', purchase.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({
      pay_to: TEST_OPERATOR_WALLET.toLowerCase(),
      price: 90_000_000n,
      credits: 1000n,
      source: 'api',
    });
  });

  it('is never an invoice: no number, no event, no webhook, no credits spent, not found by search', async () => {
    const s = await shop(['billing:read', 'billing:write', 'invoices:read']);
    const before = await counts(s.workspaceId);
    const purchase = (await s.buy('starter', 'purchase-not-an-invoice')).json<Purchase>();
    expect(await counts(s.workspaceId)).toEqual({ ...before, purchases: before.purchases + 1 });
    const search = await s.call('GET', `/invoice-search?q=${purchase.id}`);
    expect(search.json()).toMatchObject({ invoices: [] });
    const changes = await s.call('GET', '/changes?after=0');
    expect(changes.json()).toMatchObject({ events: [] });
  });

  it('answers a retry with the same key and body with the same purchase, and refuses the key with another body', async () => {
    const s = await shop();
    const first = await s.buy('starter', 'purchase-retry-key');
    const again = await s.buy('starter', 'purchase-retry-key');
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const other = await s.buy('scale', 'purchase-retry-key');
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect((await counts(s.workspaceId)).purchases).toBe(1);
  });

  it('makes exactly one purchase for 20 concurrent requests with one key', async () => {
    const s = await shop();
    const responses = await Promise.all(Array.from({ length: 20 }, () => s.buy('scale', 'purchase-concurrent')));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((response) => response.json<Purchase>().id)).size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect((await counts(s.workspaceId)).purchases).toBe(1);
  });

  it('keeps its keys apart from those of invoices', async () => {
    const s = await shop();
    const invoice = await s.call('POST', '/invoices', { amount: '1' }, { 'idempotency-key': 'shared-key-1' });
    expect(invoice.statusCode).toBe(201);
    expect((await s.buy('starter', 'shared-key-1')).statusCode).toBe(201);
  });

  it('refuses an unknown package with 422 unknown_package, leaving the key unused', async () => {
    const s = await shop();
    const refused = await s.buy('enterprise', 'purchase-unknown-package');
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({
      code: 'unknown_package',
      message: expect.stringContaining('starter, growth, scale'),
      requestId: refused.headers['x-request-id'],
    });
    expect((await s.buy('starter', 'purchase-unknown-package')).statusCode).toBe(201);
  });

  it.each([
    [{}, 400, 'invalid_request'],
    [{ packageId: 5 }, 400, 'invalid_request'],
    [{ packageId: '' }, 400, 'invalid_request'],
    [{ packageId: 'x'.repeat(65) }, 400, 'invalid_request'],
    [{ packageId: 'starter', credits: 1000000 }, 400, 'unknown_field'],
    [undefined, 400, 'invalid_json'],
  ])('refuses the body %j with %i %s', async (body, status, code) => {
    const s = await shop();
    const response = await s.call('POST', '/credit-purchases', body, {
      'idempotency-key': 'purchase-bad-body',
      'content-type': 'application/json',
    });
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
  });

  it.each([
    [undefined, 'idempotency_key_missing'],
    ['short', 'invalid_idempotency_key'],
  ])('requires an Idempotency-Key (%j → %s)', async (key, code) => {
    const s = await shop();
    const response = await s.call(
      'POST',
      '/credit-purchases',
      { packageId: 'starter' },
      key ? { 'idempotency-key': key } : {},
    );
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status: 400, code });
  });

  it('needs billing:write to buy and billing:read to read', async () => {
    const reader = await shop(['billing:read']);
    expect((await reader.buy('starter', 'purchase-no-write')).json()).toMatchObject({ code: 'permission_denied' });
    const buyer = await shop(['billing:write']);
    expect((await buyer.buy('starter', 'purchase-write-only')).statusCode).toBe(201);
    expect((await buyer.call('GET', '/credit-purchases')).json()).toMatchObject({ code: 'permission_denied' });
  });
});

describe('reading credit purchases', () => {
  it('lists them newest first, page by page, and refuses a cursor it did not hand out', async () => {
    const s = await shop();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      made.push((await s.buy('starter', `purchase-list-${i}`)).json<Purchase>().id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response = await s.call(
        'GET',
        `/credit-purchases?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(response.statusCode).toBe(200);
      const page = response.json<{ purchases: Purchase[]; nextCursor: string | null }>();
      seen.push(...page.purchases.map((purchase) => purchase.id));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seen).toEqual([...made].reverse());
    for (const bad of ['abc', '1.cp_x', `99999999999999999.${made[0]}`]) {
      const response = await s.call('GET', `/credit-purchases?cursor=${encodeURIComponent(bad)}`);
      expect({ status: response.statusCode, code: response.json().code }).toEqual({
        status: 400,
        code: 'invalid_cursor',
      });
    }
  });

  it("answers another workspace's purchase as not found", async () => {
    const owner = await shop();
    const stranger = await shop();
    const purchase = (await owner.buy('starter', 'purchase-tenant')).json<Purchase>();
    const response = await stranger.call('GET', `/credit-purchases/${purchase.id}`);
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status: 404, code: 'not_found' });
    expect((await stranger.call('GET', '/credit-purchases')).json()).toEqual({ purchases: [], nextCursor: null });
  });

  it('reads expired after its hour, with nothing left to pay', async () => {
    const s = await shop();
    const purchase = (await s.buy('starter', 'purchase-expiry')).json<Purchase>();
    clock.advance(3600_000);
    const read = (await s.call('GET', `/credit-purchases/${purchase.id}`)).json<Purchase>();
    expect(read).toMatchObject({ status: 'expired', payment: { authorizationNonce: null, networks: [] } });
    clock.set(new Date());
  });
});

describe('in the portal', () => {
  it('buys without an Idempotency-Key, on the session, and reads the same purchase', async () => {
    const s = await shop();
    const portal = (method: 'GET' | 'POST', path: string, payload?: object) =>
      app.inject({
        method,
        url: `/portal/api/w/${s.workspaceId}${path}`,
        headers: { cookie: s.cookie, origin: ORIGIN },
        ...(payload && { payload }),
      });
    const created = await portal('POST', '/credit-purchases', { packageId: 'growth' });
    expect(created.statusCode).toBe(201);
    const purchase = created.json<Purchase>();
    expect((await portal('GET', `/credit-purchases/${purchase.id}`)).json()).toEqual(purchase);
    expect((await portal('GET', '/credit-purchases')).json()).toEqual({ purchases: [purchase], nextCursor: null });
    expect((await s.call('GET', `/credit-purchases/${purchase.id}`)).json()).toEqual(purchase);
    const row = await db
      .selectFrom('credit_purchases')
      .select('source')
      .where('id', '=', purchase.id)
      .executeTakeFirstOrThrow();
    expect(row.source).toBe('portal');
  });
});

describe('payment steps reported by the payment engine', () => {
  it('adds the credits once, with a purchase ledger entry, when the purchase is paid', async () => {
    const s = await shop();
    const purchase = (await s.buy('growth', 'purchase-paid')).json<Purchase>();
    const ws = s.workspaceId as WorkspaceId;
    const id = purchase.id as CreditPurchaseId;
    const step = (command: Parameters<typeof services.creditPurchases.applyPaymentStep>[3]) =>
      db.transaction().execute((trx) => services.creditPurchases.applyPaymentStep(trx, ws, id, command));

    expect((await step({ type: 'begin_payment', startedAt: clock.now() }))?.result).toEqual({
      ok: true,
      changes: { status: 'processing' },
      credits: 0,
    });
    expect((await s.call('GET', `/credit-purchases/${id}`)).json()).toMatchObject({
      status: 'processing',
      payment: { networks: [] },
    });
    expect((await step({ type: 'payment_failed' }))?.purchase.status).toBe('open');
    await step({ type: 'begin_payment', startedAt: clock.now() });
    expect((await step({ type: 'payment_succeeded', network: 'base-sepolia' }))?.purchase).toMatchObject({
      status: 'paid',
      network: 'base-sepolia',
    });
    // Reported twice (a retried job): nothing more happens.
    expect((await step({ type: 'payment_succeeded', network: 'base-sepolia' }))?.result).toEqual({
      ok: false,
      code: 'noop',
    });
    expect((await step({ type: 'begin_payment', startedAt: clock.now() }))?.result).toEqual({
      ok: false,
      code: 'purchase_paid',
    });

    expect((await s.call('GET', `/credit-purchases/${id}`)).json()).toMatchObject({
      status: 'paid',
      network: 'base-sepolia',
      paidAt: clock.now().toISOString(),
    });
    expect((await s.call('GET', '/billing')).json()).toMatchObject({ creditBalance: 1010 });
    // A late retry of the request that made it answers the purchase as it is now: paid, nothing to pay.
    const retried = await s.buy('growth', 'purchase-paid');
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.json()).toMatchObject({ id, status: 'paid', payment: { authorizationNonce: null, networks: [] } });
    const ledger = (await s.call('GET', '/billing/ledger')).json<{ entries: { kind: string }[] }>();
    expect(ledger.entries[0]).toEqual({
      id: '2',
      kind: 'purchase',
      reason: null,
      amount: 1000,
      reserveChange: 0,
      balanceAfter: 1010,
      reference: id,
      invoiceNumber: null,
      createdAt: expect.any(String),
    });
    expect(
      await db.transaction().execute((trx) =>
        services.creditPurchases.applyPaymentStep(trx, ws, 'cp_missing' as CreditPurchaseId, {
          type: 'begin_payment',
          startedAt: clock.now(),
        }),
      ),
    ).toBeUndefined();
  });
});

describe('without OPERATOR_WALLET', () => {
  it('answers every purchase endpoint, API and portal, with 503 purchases_unavailable', async () => {
    const unconfigured = await createTestApp({ OPERATOR_WALLET: '' });
    const m = await merchant(unconfigured.app, ['billing:read', 'billing:write']);
    const id = `cp_${'0'.repeat(26)}`;
    const requests = [
      { method: 'POST' as const, path: '/credit-purchases', payload: { packageId: 'starter' } },
      { method: 'GET' as const, path: '/credit-purchases' },
      { method: 'GET' as const, path: `/credit-purchases/${id}` },
    ];
    for (const request of requests) {
      for (const [url, headers] of [
        [
          `/w/${m.workspaceId}/v1${request.path}`,
          { authorization: `Bearer ${m.apiKey}`, 'idempotency-key': 'purchase-unavailable' },
        ],
        [`/portal/api/w/${m.workspaceId}${request.path}`, { cookie: m.cookie, origin: ORIGIN }],
      ] as const) {
        const response = await unconfigured.app.inject({
          method: request.method,
          url,
          headers,
          ...(request.payload && { payload: request.payload }),
        });
        expect({ url, status: response.statusCode, code: response.json().code }).toEqual({
          url,
          status: 503,
          code: 'purchases_unavailable',
        });
        expect(response.json().message).toContain('OPERATOR_WALLET');
      }
    }
    // Billing itself still answers, with the packages on offer.
    const billing = await unconfigured.app.inject({
      method: 'GET',
      url: `/w/${m.workspaceId}/v1/billing`,
      headers: { authorization: `Bearer ${m.apiKey}` },
    });
    expect(billing.statusCode).toBe(200);
  });
});
