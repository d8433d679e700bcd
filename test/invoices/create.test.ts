import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, merchant } from '../support/app.js';

const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000', MAX_INVOICE_AMOUNT: '5000' });
let shop: Awaited<ReturnType<typeof merchant>>;
let keyCounter = 0;

beforeAll(async () => {
  shop = await merchant(app, ['invoices:create', 'payments:read', 'settings:write', 'billing:read']);
  const settings = await put('/checkout-settings', {
    origins: ['https://shop.example.com', 'https://pay.example.org'],
  });
  expect(settings.statusCode).toBe(200);
});

function put(path: string, payload: unknown) {
  return app.inject({
    method: 'PUT',
    url: `/w/${shop.workspaceId}/v1${path}`,
    headers: { authorization: `Bearer ${shop.apiKey}` },
    payload: payload as object,
  });
}

function create(
  payload: unknown,
  idempotencyKey: string | null = `order-${++keyCounter}-key`,
  extraHeaders: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/v1/invoices`,
    headers: {
      authorization: `Bearer ${shop.apiKey}`,
      ...(idempotencyKey === null ? {} : { 'idempotency-key': idempotencyKey }),
      ...extraHeaders,
    },
    payload: payload as object,
  });
}

/** Invoices, events, ledger rows and the credit account: what a refusal must leave untouched. */
async function footprint() {
  const { rows } = await sql<{
    invoices: string;
    events: string;
    ledger: string;
    balance: string;
    reserved: string;
    seq: string;
    keys: string;
  }>`
    SELECT (SELECT count(*) FROM invoices WHERE workspace_id = ${shop.workspaceId}) AS invoices,
           (SELECT count(*) FROM events WHERE workspace_id = ${shop.workspaceId}) AS events,
           (SELECT count(*) FROM credit_ledger WHERE workspace_id = ${shop.workspaceId}) AS ledger,
           (SELECT balance FROM credit_accounts WHERE workspace_id = ${shop.workspaceId}) AS balance,
           (SELECT reserved FROM credit_accounts WHERE workspace_id = ${shop.workspaceId}) AS reserved,
           (SELECT invoice_seq FROM workspaces WHERE id = ${shop.workspaceId}) AS seq,
           (SELECT count(*) FROM idempotency_keys WHERE workspace_id = ${shop.workspaceId}) AS keys`.execute(
    database.db,
  );
  return rows[0];
}

describe('POST /invoices', () => {
  it('creates an invoice from the minimal body and answers 201 with its links', async () => {
    const response = await create({ amount: '12.5' });
    expect(response.statusCode).toBe(201);
    const invoice = response.json();
    expect(invoice).toMatchObject({
      id: expect.stringMatching(/^inv_[0-9a-z]{26}$/),
      number: expect.stringMatching(/^INV-\d{6}$/),
      status: 'open',
      amount: '12.500000',
      currency: 'USDC',
      network: null,
      expiresIn: 3600,
      externalId: null,
      payTo: shop.wallet.address.toLowerCase(),
    });
    expect(invoice.url).toBe(`http://localhost:3000/w/${shop.workspaceId}/x402/${invoice.id}`);
    expect(invoice.checkoutUrl).toBe(`http://localhost:3000/w/${shop.workspaceId}/i/${invoice.id}`);
    expect(new Date(invoice.expiresAt).getTime() - new Date(invoice.createdAt).getTime()).toBe(3_600_000);

    const read = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${invoice.id}`,
      headers: { authorization: `Bearer ${shop.apiKey}` },
    });
    expect(read.json()).toEqual(invoice);
  });

  it('accepts every field of the invoice table', async () => {
    const response = await create({
      amount: '5000',
      currency: 'USDC',
      network: 'base-sepolia',
      expiresIn: 432000,
      externalId: 'order-42',
      successUrl: 'https://shop.example.com/thanks?o=42',
      cancelUrl: 'https://pay.example.org/cancel',
      payTo: shop.wallet.address, // the workspace wallet itself, in checksum case, is fine
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      amount: '5000.000000',
      network: 'base-sepolia',
      expiresIn: 432000,
      externalId: 'order-42',
    });
  });

  const oneHundredTwentyEightBytes = 'é'.repeat(64); // 2 bytes each
  const rejections: [string, unknown, number, string][] = [
    ['exponent notation', { amount: '1e3' }, 400, 'invalid_amount'],
    ['grouping separators', { amount: '1,000.00' }, 400, 'invalid_amount'],
    ['a comma as decimal separator', { amount: '12,50' }, 400, 'invalid_amount'],
    ['zero', { amount: '0' }, 400, 'invalid_amount'],
    ['zero with decimals', { amount: '0.000000' }, 400, 'invalid_amount'],
    ['a negative amount', { amount: '-1' }, 400, 'invalid_amount'],
    ['a missing leading digit', { amount: '.5' }, 400, 'invalid_amount'],
    ['a trailing dot', { amount: '1.' }, 400, 'invalid_amount'],
    ['a leading space', { amount: ' 1' }, 400, 'invalid_amount'],
    ['seven decimals', { amount: '0.0000001' }, 400, 'invalid_amount'],
    ['a leading zero', { amount: '01' }, 400, 'invalid_amount'],
    ['a number instead of a string', { amount: 5 }, 400, 'invalid_amount'],
    ['no amount', {}, 400, 'invalid_amount'],
    ['an amount above maxInvoiceAmount', { amount: '5000.000001' }, 400, 'amount_too_large'],
    ['another currency', { amount: '1', currency: 'EUR' }, 400, 'unsupported_currency'],
    ['an unconfigured network', { amount: '1', network: 'ethereum' }, 400, 'unsupported_network'],
    ['expiresIn 60', { amount: '1', expiresIn: 60 }, 400, 'invalid_expires_in'],
    ['expiresIn as a string', { amount: '1', expiresIn: '3600' }, 400, 'invalid_expires_in'],
    [
      'externalId of 129 bytes',
      { amount: '1', externalId: `${oneHundredTwentyEightBytes}x` },
      400,
      'external_id_too_long',
    ],
    [
      'a successUrl over http',
      { amount: '1', successUrl: 'http://shop.example.com/thanks' },
      400,
      'invalid_return_url',
    ],
    ['a successUrl that is no URL', { amount: '1', successUrl: 'thanks' }, 400, 'invalid_return_url'],
    [
      'a cancelUrl with credentials',
      { amount: '1', cancelUrl: 'https://user:pw@shop.example.com/' },
      400,
      'invalid_return_url',
    ],
    [
      'a successUrl on an origin not allowed',
      { amount: '1', successUrl: 'https://evil.example.com/thanks' },
      400,
      'return_origin_not_allowed',
    ],
    [
      'a cancelUrl on another port',
      { amount: '1', cancelUrl: 'https://shop.example.com:8443/x' },
      400,
      'return_origin_not_allowed',
    ],
    ['a supplied number', { amount: '1', number: 'INV-000777' }, 400, 'number_not_allowed'],
    ['an unknown field (typo)', { amount: '1', succesUrl: 'https://shop.example.com/' }, 400, 'unknown_field'],
    [
      'a payTo other than the workspace wallet',
      { amount: '1', payTo: '0x000000000000000000000000000000000000dead' },
      403,
      'pay_to_mismatch',
    ],
  ];

  it.each(rejections)('refuses %s, creating and charging nothing', async (_name, payload, status, code) => {
    const before = await footprint();
    const response = await create(payload);
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
    expect(response.json()).toMatchObject({ message: expect.any(String), requestId: response.headers['x-request-id'] });
    expect(await footprint()).toEqual(before);
  });

  it('names the largest amount it accepts when an amount is above it', async () => {
    const response = await create({ amount: '5000.000001' });
    expect(response.json()).toMatchObject({
      code: 'amount_too_large',
      message: 'amount is above the largest invoice amount, 5000.000000 USDC (maxInvoiceAmount, also in GET /billing).',
      maxInvoiceAmount: '5000.000000',
    });
  });

  it('counts externalId in UTF-8 bytes: 128 bytes pass', async () => {
    const response = await create({ amount: '1', externalId: oneHundredTwentyEightBytes });
    expect(response.statusCode).toBe(201);
    expect(response.json().externalId).toBe(oneHundredTwentyEightBytes);
  });

  it.each([
    ['missing', null, 'idempotency_key_missing'],
    ['too short', 'short', 'invalid_idempotency_key'],
    ['too long', 'k'.repeat(129), 'invalid_idempotency_key'],
    ['with a space', 'has a space', 'invalid_idempotency_key'],
  ])('refuses an Idempotency-Key that is %s', async (_name, key, code) => {
    const before = await footprint();
    const response = await create({ amount: '1' }, key);
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe(code);
    expect(await footprint()).toEqual(before);
  });

  it('accepts Idempotency-Keys of 8 and of 128 characters', async () => {
    expect((await create({ amount: '1' }, 'k'.repeat(8))).statusCode).toBe(201);
    expect((await create({ amount: '1' }, 'k'.repeat(128))).statusCode).toBe(201);
  });
});

describe('Idempotency-Key', () => {
  it('replays the same 201 for the same key and body, with no second charge', async () => {
    const first = await create({ amount: '3', externalId: 'o-1' }, 'replay-key-1');
    const before = await footprint();
    const again = await create({ externalId: 'o-1', amount: '3' }, 'replay-key-1'); // same body, keys in another order
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await footprint()).toEqual(before);
  });

  it('refuses the same key with a different body (422)', async () => {
    await create({ amount: '3' }, 'reused-key-1');
    const before = await footprint();
    const response = await create({ amount: '4' }, 'reused-key-1');
    expect(response.statusCode).toBe(422);
    expect(response.json().code).toBe('idempotency_key_reused');
    expect(await footprint()).toEqual(before);
  });

  it('creates exactly one invoice, one charge and one number for 50 parallel requests with one key', async () => {
    const before = await footprint();
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => create({ amount: '7.25' }, 'parallel-key-50')),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(50).fill(201));
    expect(new Set(responses.map((response) => response.json().id)).size).toBe(1);
    expect(new Set(responses.map((response) => response.json().number)).size).toBe(1);
    expect(responses.filter((response) => response.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    const after = await footprint();
    expect(Number(after!.invoices) - Number(before!.invoices)).toBe(1);
    expect(Number(after!.seq) - Number(before!.seq)).toBe(1);
    expect(Number(before!.balance) - Number(after!.balance)).toBe(1);
    expect(Number(after!.ledger) - Number(before!.ledger)).toBe(1);
  });

  it('scopes keys to the workspace', async () => {
    const other = await merchant(app, ['invoices:create']);
    const mine = await create({ amount: '1' }, 'shared-key-123');
    const theirs = await app.inject({
      method: 'POST',
      url: `/w/${other.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${other.apiKey}`, 'idempotency-key': 'shared-key-123' },
      payload: { amount: '1' },
    });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(mine.json().id);
    expect(theirs.json().number).toBe('INV-000001');
  });

  it('keeps keys at least as long as the longest payment window', async () => {
    await create({ amount: '1' }, 'retention-key');
    const row = await database.db
      .selectFrom('idempotency_keys')
      .select(['created_at', 'expires_at'])
      .where('workspace_id', '=', shop.workspaceId)
      .where('key', '=', 'retention-key')
      .executeTakeFirstOrThrow();
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBeGreaterThanOrEqual(5 * 24 * 3_600_000);
  });
});

describe('GET /invoices/{id}', () => {
  it("answers 404 for another workspace's invoice", async () => {
    const other = await merchant(app, ['invoices:create', 'payments:read']);
    const theirs = await app.inject({
      method: 'POST',
      url: `/w/${other.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${other.apiKey}`, 'idempotency-key': 'their-invoice-1' },
      payload: { amount: '1' },
    });
    const response = await app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${theirs.json().id}`,
      headers: { authorization: `Bearer ${shop.apiKey}` },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('not_found');
  });
});
