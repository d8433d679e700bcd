import { describe, expect, it } from 'vitest';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createKey, createTestApp, createWorkspace, merchant } from '../support/app.js';

const GRANT = 20;
const clock = new ManualClock();
const { app, services } = await createTestApp({ NEW_WORKSPACE_CREDITS: String(GRANT) }, clock);

interface Entry {
  id: string;
  kind: string;
  reason: string | null;
  amount: number;
  reserveChange: number;
  balanceAfter: number;
  reference: string | null;
  invoiceNumber: string | null;
  createdAt: string;
}

function api(shop: { workspaceId: string; apiKey: string }) {
  return (method: 'GET' | 'POST', path: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `/w/${shop.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${shop.apiKey}`, ...headers },
      ...(payload && { payload }),
    });
}

/** Every entry, following nextCursor page by page. */
async function wholeLedger(get: (query: string) => Promise<{ statusCode: number; json(): unknown }>, limit: number) {
  const entries: Entry[] = [];
  let after: string | null = null;
  do {
    const response = await get(`?limit=${limit}${after ? `&after=${after}` : ''}`);
    expect(response.statusCode).toBe(200);
    const page = response.json() as { entries: Entry[]; nextCursor: string | null };
    expect(page.entries.length).toBeLessThanOrEqual(limit);
    entries.push(...page.entries);
    after = page.nextCursor;
  } while (after !== null);
  return entries;
}

describe('the credit ledger', () => {
  it('explains the balance after a mixed run: every entry, newest first, each with the balance it left', async () => {
    const shop = await merchant(app, ['invoices:create', 'billing:read']);
    const call = api(shop);
    const created: string[] = [];
    for (const [index, expiresIn] of [3600, 86400, 432000, 3600].entries()) {
      const response = await call(
        'POST',
        '/invoices',
        { amount: '5', expiresIn },
        { 'idempotency-key': `mixed-run-${index}` },
      );
      expect(response.statusCode).toBe(201);
      created.push(response.json<{ id: string }>().id);
    }
    expect((await call('POST', `/invoices/${created[1]}/cancel`, {})).statusCode).toBe(200);
    expect((await call('POST', `/invoices/${created[2]}/renew`, { expiresIn: 3600 })).statusCode).toBe(200);
    expect(
      await services.billing.grant(shop.workspaceId as WorkspaceId, 7, '  goodwill for the outage of May 3 '),
    ).toEqual({ creditBalance: GRANT - 1 - 2 - 3 - 1 - 1 + 7, availableCredits: GRANT - 8 - 3 + 7 });
    // Expiry releases a reserve too (the job's work, done here at once).
    clock.advance(3601 * 1000);
    expect(await services.invoices.expireDue()).toBe(3);
    // Back to the wall clock, which sign-in messages are dated by.
    clock.set(new Date());

    const billing = (await call('GET', '/billing')).json<{ creditBalance: number; reservedCredits: number }>();
    const entries = await wholeLedger((query) => call('GET', `/billing/ledger${query}`), 3);
    expect(entries.map((entry) => entry.id)).toEqual(
      Array.from({ length: entries.length }, (_, i) => String(entries.length - i)),
    );
    const oldestFirst = [...entries].reverse();
    let balance = 0;
    let reserve = 0;
    for (const entry of oldestFirst) {
      balance += entry.amount;
      reserve += entry.reserveChange;
      expect(entry.balanceAfter).toBe(balance);
    }
    expect(balance).toBe(billing.creditBalance);
    expect(reserve).toBe(billing.reservedCredits);
    expect(reserve).toBe(0);

    const described = oldestFirst.map(({ kind, amount, reserveChange, reference, reason }) => ({
      kind,
      amount,
      reserveChange,
      reference,
      reason,
    }));
    expect(described.slice(0, 8)).toEqual([
      { kind: 'grant', amount: GRANT, reserveChange: 0, reference: null, reason: 'new workspace' },
      { kind: 'invoice.created', amount: -1, reserveChange: 1, reference: created[0], reason: null },
      { kind: 'invoice.created', amount: -2, reserveChange: 1, reference: created[1], reason: null },
      { kind: 'invoice.created', amount: -3, reserveChange: 1, reference: created[2], reason: null },
      { kind: 'invoice.created', amount: -1, reserveChange: 1, reference: created[3], reason: null },
      { kind: 'invoice.cancelled', amount: 0, reserveChange: -1, reference: created[1], reason: null },
      { kind: 'invoice.renewed', amount: -1, reserveChange: 0, reference: created[2], reason: null },
      {
        kind: 'manual_grant',
        amount: 7,
        reserveChange: 0,
        reference: null,
        reason: 'goodwill for the outage of May 3',
      },
    ]);
    // The three expiries share one deadline, so their order among themselves is the job's.
    expect(described.slice(8)).toHaveLength(3);
    expect(new Set(described.slice(8).map((entry) => JSON.stringify({ ...entry, reference: null })))).toEqual(
      new Set([
        JSON.stringify({ kind: 'invoice.expired', amount: 0, reserveChange: -1, reference: null, reason: null }),
      ]),
    );
    expect(new Set(described.slice(8).map((entry) => entry.reference))).toEqual(
      new Set([created[0], created[2], created[3]]),
    );
    expect(entries.every((entry) => !Number.isNaN(Date.parse(entry.createdAt)))).toBe(true);
    // Each invoice entry names the invoice by its number too; other entries name none.
    // A fresh workspace numbers its invoices from 1, in the order they were made.
    const numbers = new Map(created.map((id, index) => [id, `INV-${String(index + 1).padStart(6, '0')}`]));
    for (const entry of entries)
      expect([entry.kind, entry.invoiceNumber]).toEqual([entry.kind, numbers.get(entry.reference ?? '') ?? null]);
    expect(entries.filter((entry) => entry.invoiceNumber !== null)).toHaveLength(9);

    // The portal reads the same ledger under the session.
    const portal = await wholeLedger(
      (query) =>
        app.inject({
          method: 'GET',
          url: `/portal/api/w/${shop.workspaceId}/billing/ledger${query}`,
          headers: { cookie: shop.cookie },
        }),
      50,
    );
    expect(portal).toEqual(entries);
  });

  it.each(['abc', '0', '-1', '1.5', '99999999999999999999', '9223372036854775808', 'x'.repeat(65)])(
    'refuses the cursor %j with 400 invalid_cursor',
    async (after) => {
      const shop = await merchant(app, ['billing:read']);
      const response = await api(shop)('GET', `/billing/ledger?after=${encodeURIComponent(after)}`);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'invalid_cursor', requestId: response.headers['x-request-id'] });
    },
  );

  it('answers an empty page after the oldest entry', async () => {
    const shop = await merchant(app, ['billing:read']);
    const page = (await api(shop)('GET', '/billing/ledger?after=1')).json();
    expect(page).toEqual({ entries: [], nextCursor: null });
  });
});

describe('GET /billing', () => {
  it('lists the packages on offer, prices as USDC decimal strings', async () => {
    const shop = await merchant(app, ['billing:read']);
    const billing = (await api(shop)('GET', '/billing')).json();
    expect(billing).toMatchObject({
      creditBalance: GRANT,
      firstWorkspaceOfWallet: true,
      packages: [
        { id: 'starter', credits: 100, price: '10.000000', currency: 'USDC' },
        { id: 'growth', credits: 1000, price: '90.000000', currency: 'USDC' },
        { id: 'scale', credits: 10000, price: '800.000000', currency: 'USDC' },
      ],
    });
  });

  it("starts a wallet's later workspace at 0, says why in its ledger, and marks it as not the first", async () => {
    const first = await merchant(app, ['billing:read']);
    const second = await createWorkspace(app, first.cookie, 'Second shop');
    const key = (await createKey(app, first.cookie, second, ['billing:read'])).json<{ secret: string }>().secret;
    const call = api({ workspaceId: second, apiKey: key });
    expect((await call('GET', '/billing')).json()).toMatchObject({ creditBalance: 0, firstWorkspaceOfWallet: false });
    expect((await call('GET', '/billing/ledger')).json()).toEqual({
      entries: [
        {
          id: '1',
          kind: 'grant',
          reason: "new workspace: credits are granted once per wallet, to the wallet's first workspace",
          amount: 0,
          reserveChange: 0,
          balanceAfter: 0,
          reference: null,
          invoiceNumber: null,
          createdAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    const portal = await app.inject({
      method: 'GET',
      url: `/portal/api/w/${second}/billing`,
      headers: { cookie: first.cookie, origin: ORIGIN },
    });
    expect(portal.json()).toMatchObject({ creditBalance: 0, firstWorkspaceOfWallet: false });
  });
});
