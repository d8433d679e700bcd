import { sql } from 'kysely';
import { getAddress } from 'viem';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { createKey, createTestApp, createWorkspace, newWallet, signIn } from '../support/app.js';
import { createTestChain } from '../support/chain.js';
import { signCheckoutAuthorization } from '../support/checkout.js';

const chain = await createTestChain();
const { app, database } = await createTestApp(
  { API_RATE_LIMIT_PER_MINUTE: '1000000', CHECKOUT_RATE_LIMIT_PER_MINUTE: '1000000' },
  systemClock,
  chain,
);
const db = database.db;

const OLD_ADDRESS = '0x000000000000000000000000000000000000dead';
const JSON_ACCEPT = { accept: 'application/json' };
const HTML_ACCEPT = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
let keyCounter = 0;

const wallet = newWallet();
const cookie = await signIn(app, wallet);
const workspaceId = await createWorkspace(app, cookie, 'Shop');
const apiKey = (await createKey(app, cookie, workspaceId, ['invoices:create', 'payments:read'])).json<{
  secret: string;
}>().secret;

async function invoice(amount = '2.5') {
  keyCounter += 1;
  const response = await app.inject({
    method: 'POST',
    url: `/w/${workspaceId}/v1/invoices`,
    headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': `recipient-changed-${keyCounter}` },
    payload: { amount },
  });
  expect(response.statusCode).toBe(201);
  const { id } = response.json<{ id: string }>();
  return { id, amount, path: `/w/${workspaceId}/i/${id}` };
}

/** As if the invoice had been issued while the workspace received at another address. */
async function bindToOldAddress(id: string, changes: { status?: string; expired?: boolean } = {}) {
  await sql`UPDATE invoices SET pay_to = ${OLD_ADDRESS}, status = coalesce(${changes.status ?? null}, status),
              expires_at = CASE WHEN ${changes.expired ?? false} THEN now() - interval '1 minute' ELSE expires_at END
            WHERE id = ${id}`.execute(db);
}

const details = async (path: string) => (await app.inject({ method: 'GET', url: path, headers: JSON_ACCEPT })).json();

async function signedAuthorization(amount: string, nonce: string) {
  return signCheckoutAuthorization(
    await chain.payer(10_000_000n),
    { recipient: wallet.address, amount },
    nonce as `0x${string}`,
  );
}

describe('a checkout link issued for an address the workspace no longer receives at', () => {
  it('reads as unpayable in the payment details: no recipient, no networks, no nonce', async () => {
    const open = await invoice();
    const expired = await invoice();
    const current = await invoice();
    await bindToOldAddress(open.id);
    await bindToOldAddress(expired.id, { expired: true });

    expect(await details(open.path)).toMatchObject({
      status: 'open',
      recipientChanged: true,
      recipient: null,
      authorizationNonce: null,
      networks: [],
    });
    expect(await details(expired.path)).toMatchObject({ status: 'expired', recipientChanged: true, recipient: null });
    expect(await details(current.path)).toMatchObject({
      status: 'open',
      recipientChanged: false,
      recipient: getAddress(wallet.address),
      authorizationNonce: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      networks: [expect.objectContaining({ name: 'base-sepolia' })],
    });
  });

  it('keeps the recipient of a paid or processing invoice: that payment went, or is going, to it', async () => {
    for (const status of ['paid', 'processing']) {
      const done = await invoice();
      await bindToOldAddress(done.id, { status });
      expect(await details(done.path)).toMatchObject({
        status,
        recipientChanged: false,
        recipient: getAddress(OLD_ADDRESS),
      });
    }
  });

  it('is drawn as a page that says it can no longer be paid, with no address, QR code or way to pay', async () => {
    const stale = await invoice('7.25');
    await bindToOldAddress(stale.id);
    const response = await app.inject({ method: 'GET', url: stale.path, headers: HTML_ACCEPT });
    expect(response.statusCode).toBe(200);
    const page = response.body;
    expect(page).toContain('data-status="unpayable">Cannot be paid</span>');
    // The notice is drawn shown (no `hidden`), the others hidden.
    expect(page).toMatch(
      /<p id="notice-unpayable" class="notice" role="status"\s*><strong>This payment link can no longer be paid\./,
    );
    expect(page).not.toContain('Awaiting payment</span>');
    expect(page).toMatch(/<p id="deadline-line" class="deadline" hidden>/);
    for (const absent of ['id="recipient"', 'qr-code', 'ethereum:', 'id="pay"', 'id="tx-form"', 'id="wallet-pay"'])
      expect(page, absent).not.toContain(absent);
    expect(page.toLowerCase()).not.toContain(OLD_ADDRESS);
  });

  it('refuses a payment by either checkout path with 403 pay_to_mismatch', async () => {
    const stale = await invoice();
    await bindToOldAddress(stale.id);
    const hash = await app.inject({
      method: 'POST',
      url: `${stale.path}/transactions`,
      payload: { network: 'base-sepolia', txHash: `0x${'ab'.repeat(32)}` },
    });
    expect({ status: hash.statusCode, code: hash.json().code }).toEqual({ status: 403, code: 'pay_to_mismatch' });
  });
});

describe('payTo in the checkout bodies, as POST /invoices takes it', () => {
  it('accepts the workspace wallet in any letter case and refuses any other value with 403, not 400 unknown_field', async () => {
    const target = await invoice();
    const submit = (payTo: unknown, index: number) =>
      app.inject({
        method: 'POST',
        url: `${target.path}/transactions`,
        payload: { network: 'base-sepolia', txHash: `0x${String(index).padStart(64, '0')}`, payTo },
      });
    for (const [index, payTo] of [getAddress(wallet.address), wallet.address.toLowerCase()].entries())
      expect((await submit(payTo, index + 1)).statusCode).toBe(202);
    for (const [index, payTo] of [OLD_ADDRESS, 'not an address', ''].entries()) {
      const response = await submit(payTo, index + 10);
      expect({ status: response.statusCode, code: response.json().code }).toEqual({
        status: 403,
        code: 'pay_to_mismatch',
      });
    }
    const malformed = await submit(42, 20);
    expect(malformed.statusCode).toBe(400);
    // An unknown invoice stays the same 404, whatever payTo says.
    const unknown = await app.inject({
      method: 'POST',
      url: `/w/${workspaceId}/i/inv_00000000000000000000000000/transactions`,
      payload: { network: 'base-sepolia', txHash: `0x${'cd'.repeat(32)}`, payTo: OLD_ADDRESS },
    });
    expect({ status: unknown.statusCode, code: unknown.json().code }).toEqual({ status: 404, code: 'not_found' });
  });

  it('takes payTo with a signed authorization: the wallet itself is accepted, another address is 403', async () => {
    const target = await invoice('1.5');
    const { authorizationNonce } = await details(target.path);
    const body = await signedAuthorization(target.amount, authorizationNonce);
    const refused = await app.inject({
      method: 'POST',
      url: `${target.path}/authorizations`,
      payload: { ...body, payTo: OLD_ADDRESS },
    });
    expect({ status: refused.statusCode, code: refused.json().code }).toEqual({ status: 403, code: 'pay_to_mismatch' });
    const accepted = await app.inject({
      method: 'POST',
      url: `${target.path}/authorizations`,
      payload: { ...body, payTo: wallet.address.toUpperCase().replace('0X', '0x') },
    });
    expect(accepted.statusCode).toBe(202);
  });
});
