import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../src/modules/api-keys/api-key.js';
import { addCredits, moveCredits } from '../../src/modules/billing/index.js';
import { ManualClock } from '../../src/shared/clock.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant, merchantApi } from '../support/app.js';

// A month of a workspace's life, each step's invoice and ledger times placed where the story says, with
// another workspace busy in the same month. The statement must count exactly the month's own.

const GRANT = 100;
const clock = new ManualClock();
const { app, services, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: String(GRANT) }, clock);
const db = database.db;

interface Statement {
  workspace: { id: string; name: string };
  month: string;
  from: string;
  to: string;
  final: boolean;
  generatedAt: string;
  invoices: {
    created: number;
    paid: number;
    cancelled: number;
    expired: number;
    paidVolume: { currency: string; network: string | null; invoices: number; amount: string }[];
  };
  credits: {
    openingBalance: number;
    granted: number;
    purchased: number;
    spent: number;
    closingBalance: number;
    movements: { kind: string; entries: number; credited: number; debited: number }[];
  };
}

// Signed in on the wall clock, which SIWE messages are dated by; the story then runs on the test clock.
const shop = await merchant(app, [...PERMISSIONS]);
const other = await merchant(app, [...PERMISSIONS]);
const now = new Date();
/** Ledger entries are dated by the database (its transaction time); each step moves its own to the story's time. */
const UNSTAMPED_AFTER = new Date(now.getTime() - 3600_000);

async function at<T>(time: string, step: () => Promise<T>): Promise<T> {
  clock.set(new Date(time));
  const result = await step();
  await sql`UPDATE credit_ledger SET created_at = ${new Date(time)}
             WHERE workspace_id IN (${shop.workspaceId}, ${other.workspaceId}) AND created_at > ${UNSTAMPED_AFTER}`.execute(
    db,
  );
  return result;
}

async function createInvoice(owner: typeof shop, amount: string, expiresIn = 3600): Promise<string> {
  const response = await merchantApi(app, owner.workspaceId, owner.apiKey)(
    'POST',
    '/invoices',
    { 'idempotency-key': `statement-${Math.random().toString(36).slice(2)}` },
    { amount, expiresIn },
  );
  expect(response.statusCode).toBe(201);
  return response.json<{ id: string }>().id;
}

/**
 * The invoice paid on `network` as the payment engine records it: the success fee captured with its
 * ledger entry, the invoice paid, its succeeded payment intent. (Paying on a chain is the checkout tests'
 * business.) An overpayment beside it, on another network, must not count.
 */
async function pay(owner: typeof shop, invoiceId: string, network: string, overpaidOn?: string): Promise<void> {
  const paidAt = clock.now();
  await db.transaction().execute(async (trx) => {
    expect(
      await moveCredits(trx, owner.workspaceId as WorkspaceId, [
        { kind: 'invoice.paid', charge: 1n, reserveChange: -1n, reference: invoiceId },
      ]),
    ).toBe(true);
    await sql`UPDATE invoices SET status = 'paid', paid_at = ${paidAt}, fee_reserved = 0
               WHERE workspace_id = ${owner.workspaceId} AND id = ${invoiceId}`.execute(trx);
    for (const [suffix, on, overpayment] of [
      ['', network, false],
      ...(overpaidOn ? [['_over', overpaidOn, true] as const] : []),
    ] as const) {
      await sql`INSERT INTO payment_intents (workspace_id, id, invoice_id, method, status, network, amount, pay_to,
                                             link_version, submitted_at, overpayment)
                SELECT workspace_id, 'pi_' || id || ${suffix}, id, 'transaction', 'succeeded', ${on}, amount, pay_to, 1, ${paidAt}, ${overpayment}
                  FROM invoices WHERE workspace_id = ${owner.workspaceId} AND id = ${invoiceId}`.execute(trx);
    }
  });
}

async function statement(owner: typeof shop, month?: string): Promise<Statement> {
  const response = await merchantApi(
    app,
    owner.workspaceId,
    owner.apiKey,
  )('GET', month ? `/statement?month=${month}` : '/statement');
  expect(response.statusCode).toBe(200);
  return response.json<Statement>();
}

const call = merchantApi(app, shop.workspaceId, shop.apiKey);
// The new-workspace grants, in February.
await at('2026-02-10T12:00:00Z', async () => {});
const lateFebruary = await at('2026-02-28T23:59:59.999Z', () => createInvoice(shop, '10'));
const firstInstant = await at('2026-03-01T00:00:00.000Z', () => createInvoice(shop, '2.5', 86400));
await at('2026-03-01T00:30:00Z', () => pay(shop, lateFebruary, 'base-sepolia', 'base'));
await at('2026-03-01T12:00:00Z', () => pay(shop, firstInstant, 'base'));
await at('2026-03-05T09:00:00Z', () => services.billing.grant(shop.workspaceId as WorkspaceId, 50, 'goodwill'));
await at('2026-03-10T09:00:00Z', () =>
  db
    .transaction()
    .execute((trx) =>
      addCredits(trx, shop.workspaceId as WorkspaceId, { kind: 'purchase', credits: 100n, reference: 'cp_statement' }),
    ),
);
const cancelled = await at('2026-03-15T00:00:00Z', () => createInvoice(shop, '3'));
await at('2026-03-15T00:10:00Z', async () =>
  expect((await call('POST', `/invoices/${cancelled}/cancel`, {}, {})).statusCode).toBe(200),
);
const renewed = await at('2026-03-20T10:00:00Z', () => createInvoice(shop, '4'));
await at('2026-03-20T10:30:00Z', async () =>
  expect((await call('POST', `/invoices/${renewed}/renew`, {}, { expiresIn: 3600 })).statusCode).toBe(200),
);
await at('2026-03-20T11:31:00Z', async () => expect(await services.invoices.expireDue()).toBe(1));
const lastDay = await at('2026-03-31T22:00:00Z', () => createInvoice(shop, '7.25'));
const paidInApril = await at('2026-03-31T23:30:00Z', () => createInvoice(shop, '1'));
await at('2026-03-31T23:59:59.999Z', () => pay(shop, lastDay, 'base-sepolia'));
await at('2026-04-01T00:00:00.000Z', () => pay(shop, paidInApril, 'base'));
// Never paid: open past its deadline, not yet marked by the expiry job, it reads expired in April.
await at('2026-04-02T00:00:00Z', () => createInvoice(shop, '9'));
// The other workspace, busy in March.
const foreign = await at('2026-03-10T10:00:00Z', () => createInvoice(other, '500'));
await at('2026-03-11T10:00:00Z', () => pay(other, foreign, 'base-sepolia'));
await at('2026-03-12T10:00:00Z', () => services.billing.grant(other.workspaceId as WorkspaceId, 1000, 'big'));
clock.set(now);

describe('the monthly statement', () => {
  it("counts the month's invoices by their own times, and the paid volume per network", async () => {
    const march = await statement(shop, '2026-03');
    expect(march).toMatchObject({
      workspace: { id: shop.workspaceId, name: 'Shop' },
      month: '2026-03',
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-04-01T00:00:00.000Z',
      final: true,
      generatedAt: now.toISOString(),
    });
    expect(march.invoices).toEqual({
      created: 5,
      paid: 3,
      cancelled: 1,
      expired: 1,
      paidVolume: [
        { currency: 'USDC', network: 'base', invoices: 1, amount: '2.500000' },
        { currency: 'USDC', network: 'base-sepolia', invoices: 2, amount: '17.250000' },
      ],
    });
  });

  it('says where the credits went, by ledger kind, with the balance identity', async () => {
    const { credits } = await statement(shop, '2026-03');
    expect(credits).toEqual({
      openingBalance: GRANT - 1,
      granted: 50,
      purchased: 100,
      spent: 10,
      closingBalance: GRANT - 1 + 150 - 10,
      movements: [
        { kind: 'invoice.cancelled', entries: 1, credited: 0, debited: 0 },
        { kind: 'invoice.created', entries: 5, credited: 0, debited: 6 },
        { kind: 'invoice.expired', entries: 1, credited: 0, debited: 0 },
        { kind: 'invoice.paid', entries: 3, credited: 0, debited: 3 },
        { kind: 'invoice.renewed', entries: 1, credited: 0, debited: 1 },
        { kind: 'manual_grant', entries: 1, credited: 50, debited: 0 },
        { kind: 'purchase', entries: 1, credited: 100, debited: 0 },
      ],
    });
  });

  it('chains the months: each closing balance is the next opening, and every month adds up', async () => {
    const months = ['2026-01', '2026-02', '2026-03', '2026-04', '2026-05'];
    const statements = await Promise.all(months.map((month) => statement(shop, month)));
    for (const { credits } of statements) {
      expect(credits.openingBalance + credits.granted + credits.purchased - credits.spent).toBe(credits.closingBalance);
      const byKind = credits.movements.reduce((sum, m) => sum + m.credited - m.debited, 0);
      expect(credits.openingBalance + byKind).toBe(credits.closingBalance);
    }
    for (let i = 1; i < statements.length; i++)
      expect(statements[i]!.credits.openingBalance).toBe(statements[i - 1]!.credits.closingBalance);
    const [, february, , april] = statements;
    expect(february!.credits).toMatchObject({ openingBalance: 0, granted: GRANT, spent: 1, closingBalance: GRANT - 1 });
    expect(february!.invoices).toMatchObject({ created: 1, paid: 0 });
    expect(april!.invoices).toEqual({
      created: 1,
      paid: 1,
      cancelled: 0,
      expired: 1,
      paidVolume: [{ currency: 'USDC', network: 'base', invoices: 1, amount: '1.000000' }],
    });
    expect(april!.credits).toMatchObject({ openingBalance: 239, spent: 2, closingBalance: 237 });
    // The ledger's own balance today is where the last month ends.
    const billing = (await call('GET', '/billing')).json<{ creditBalance: number }>();
    expect(statements.at(-1)!.credits.closingBalance).toBe(billing.creditBalance);
  });

  it('is all zeros for a month before the workspace existed, and carries the balance through a quiet month', async () => {
    const before = await statement(shop, '2026-01');
    expect(before.invoices).toEqual({ created: 0, paid: 0, cancelled: 0, expired: 0, paidVolume: [] });
    expect(before.credits).toEqual({
      openingBalance: 0,
      granted: 0,
      purchased: 0,
      spent: 0,
      closingBalance: 0,
      movements: [],
    });
    const quiet = await statement(shop, '2026-06');
    expect(quiet.invoices.created + quiet.invoices.paid).toBe(0);
    expect(quiet.credits).toMatchObject({ openingBalance: 237, closingBalance: 237, movements: [] });
  });

  it("counts none of another workspace's invoices or credits", async () => {
    const march = await statement(other, '2026-03');
    expect(march.invoices).toEqual({
      created: 1,
      paid: 1,
      cancelled: 0,
      expired: 0,
      paidVolume: [{ currency: 'USDC', network: 'base-sepolia', invoices: 1, amount: '500.000000' }],
    });
    expect(march.credits).toMatchObject({
      openingBalance: GRANT,
      granted: 1000,
      spent: 2,
      closingBalance: GRANT + 998,
    });
  });

  it('covers the current month up to now when no month is given', async () => {
    const current = await statement(shop);
    expect(current).toMatchObject({ month: now.toISOString().slice(0, 7), final: false });
    expect(current.credits.closingBalance).toBe(237);
  });
});
