import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createKey, createTestApp, createWorkspace, newWallet, signedSiwe } from '../support/app.js';

const GRANT = 5;
const TARIFF = { 3600: 1, 86400: 2, 432000: 3 } as const;
type Window = keyof typeof TARIFF;
const WINDOWS = [3600, 86400, 432000] as const;
const FEE = 1;

const clock = new ManualClock();
const { app, services, database } = await createTestApp(
  { NEW_WORKSPACE_CREDITS: String(GRANT), API_RATE_LIMIT_PER_MINUTE: '1000000' },
  clock,
);
const db = database.db;

/** A workspace with the grant and one key; signs in at the manual clock's time. */
async function shop() {
  const wallet = newWallet();
  const verify = await app.inject({
    method: 'POST',
    url: '/auth/verify',
    headers: { origin: ORIGIN },
    payload: await signedSiwe(app, wallet, { issuedAt: clock.now() }),
  });
  const cookie = `invoice_session=${verify.cookies.find((candidate) => candidate.name === 'invoice_session')!.value}`;
  const workspaceId = await createWorkspace(app, cookie);
  const apiKey = (
    await createKey(app, cookie, workspaceId, ['invoices:create', 'payments:read', 'billing:read'])
  ).json<{ secret: string }>().secret;
  const call = (path: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method: payload ? 'POST' : 'GET',
      url: `/w/${workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  return {
    workspaceId,
    create: (body: object, idempotencyKey: string) => call('/invoices', body, { 'idempotency-key': idempotencyKey }),
    cancel: (id: string) => call(`/invoices/${id}/cancel`, {}),
    renew: (id: string, body: object) => call(`/invoices/${id}/renew`, body),
    billing: async () =>
      (await call('/billing')).json<{ creditBalance: number; reservedCredits: number; availableCredits: number }>(),
  };
}

/** Adds credits the way a purchase would, with its ledger row, so the ledger still explains the balance. */
async function topUp(workspaceId: string, credits: number) {
  await db.transaction().execute(async (trx) => {
    await sql`UPDATE credit_accounts SET balance = balance + ${credits} WHERE workspace_id = ${workspaceId}`.execute(
      trx,
    );
    await trx
      .insertInto('credit_ledger')
      .values({ workspace_id: workspaceId, kind: 'test_top_up', balance_change: BigInt(credits), reference: 'test' })
      .execute();
  });
}

/** Credits as stored, and what the ledger and the invoices say they should be. */
async function accounts(workspaceId: string) {
  const { rows } = await sql<{
    balance: bigint;
    reserved: bigint;
    feeReserved: bigint;
    ledgerBalance: bigint;
    ledgerReserve: bigint;
    ledgerRows: number;
    invoices: number;
    events: number;
    numbers: bigint[];
    invoiceSeq: bigint;
    keys: number;
  }>`
    SELECT a.balance, a.reserved,
           (SELECT coalesce(sum(fee_reserved), 0)::bigint FROM invoices WHERE workspace_id = a.workspace_id) AS "feeReserved",
           (SELECT sum(balance_change)::bigint FROM credit_ledger WHERE workspace_id = a.workspace_id) AS "ledgerBalance",
           (SELECT sum(reserve_change)::bigint FROM credit_ledger WHERE workspace_id = a.workspace_id) AS "ledgerReserve",
           (SELECT count(*)::int FROM credit_ledger WHERE workspace_id = a.workspace_id) AS "ledgerRows",
           (SELECT count(*)::int FROM invoices WHERE workspace_id = a.workspace_id) AS invoices,
           (SELECT count(*)::int FROM events WHERE workspace_id = a.workspace_id) AS events,
           (SELECT coalesce(array_agg(number ORDER BY number), '{}') FROM invoices WHERE workspace_id = a.workspace_id) AS numbers,
           (SELECT invoice_seq FROM workspaces WHERE id = a.workspace_id) AS "invoiceSeq",
           (SELECT count(*)::int FROM idempotency_keys WHERE workspace_id = a.workspace_id) AS keys
      FROM credit_accounts a WHERE a.workspace_id = ${workspaceId}`.execute(db);
  return rows[0]!;
}

/** The credit invariants that hold after every operation, whatever happened. */
async function expectInvariants(workspaceId: string) {
  const stored = await accounts(workspaceId);
  expect(stored.balance).toBeGreaterThanOrEqual(0n);
  expect(stored.reserved).toBeGreaterThanOrEqual(0n);
  expect(stored.reserved).toBeLessThanOrEqual(stored.balance);
  expect(stored.reserved).toBe(stored.feeReserved);
  expect(stored.ledgerBalance).toBe(stored.balance);
  expect(stored.ledgerReserve).toBe(stored.reserved);
  // Gapless numbering: 1…n.
  expect(stored.numbers.map(Number)).toEqual(Array.from({ length: stored.invoices }, (_, i) => i + 1));
  expect(Number(stored.invoiceSeq)).toBe(stored.invoices);
  return stored;
}

/** Deterministic pseudo-random numbers (mulberry32): a failing sequence can be replayed from its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ModelInvoice {
  id: string;
  status: 'open' | 'expired' | 'cancelled';
  expiresIn: Window;
  expiresAt: number;
  feeReserved: number;
}

describe('credit invariants', () => {
  it.each([1, 2, 3])(
    'hold after every step of a random sequence of creates, cancels, renewals and expiries (seed %i)',
    async (seed) => {
      const s = await shop();
      const next = random(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
      // The grant alone would be gone after two invoices; a top-up (with its ledger row) makes the run longer.
      const topUp1 = 25;
      await topUp(s.workspaceId, topUp1);
      const model = { balance: GRANT + topUp1, reserved: 0, charges: 0, events: 0, invoices: [] as ModelInvoice[] };
      const available = () => model.balance - model.reserved;
      const outcomes: Record<string, number> = {};
      const tally = (name: string) => (outcomes[name] = (outcomes[name] ?? 0) + 1);

      for (let step = 0; step < 60; step++) {
        const roll = next();
        const target = model.invoices.length > 0 ? pick(model.invoices) : undefined;
        const context = `seed ${seed}, step ${step}`;
        if (roll < 0.4 || !target) {
          const expiresIn = pick(WINDOWS);
          const response = await s.create({ amount: '1.5', expiresIn }, `credits-${seed}-${step}`);
          if (available() >= TARIFF[expiresIn] + FEE) {
            expect(response.statusCode, context).toBe(201);
            model.balance -= TARIFF[expiresIn];
            model.charges += TARIFF[expiresIn];
            model.reserved += FEE;
            model.events++;
            model.invoices.push({
              id: response.json<{ id: string }>().id,
              status: 'open',
              expiresIn,
              expiresAt: clock.now().getTime() + expiresIn * 1000,
              feeReserved: FEE,
            });
            tally('created');
          } else {
            expect({ status: response.statusCode, code: response.json().code }, context).toEqual({
              status: 402,
              code: 'insufficient_credits',
            });
            tally('create refused');
          }
        } else if (roll < 0.55) {
          const response = await s.cancel(target.id);
          if (target.status === 'cancelled') {
            // Cancelling again answers the cancelled invoice and moves nothing.
            expect({ status: response.statusCode, invoice: response.json().status }, context).toEqual({
              status: 200,
              invoice: 'cancelled',
            });
            tally('cancelled again');
          } else {
            expect(response.statusCode, context).toBe(200);
            model.reserved -= target.feeReserved;
            target.feeReserved = 0;
            target.status = 'cancelled';
            model.events++;
            tally('cancelled');
          }
        } else if (roll < 0.8) {
          const requested = next() < 0.3 ? undefined : pick(WINDOWS);
          const response = await s.renew(target.id, requested === undefined ? {} : { expiresIn: requested });
          const window = requested ?? target.expiresIn;
          const reserveChange = FEE - target.feeReserved;
          if (target.status === 'cancelled') {
            expect(response.statusCode, context).toBe(409);
            tally('renew refused (cancelled)');
          } else if (available() >= TARIFF[window] + Math.max(0, reserveChange)) {
            expect(response.statusCode, context).toBe(200);
            model.balance -= TARIFF[window];
            model.charges += TARIFF[window];
            model.reserved += reserveChange;
            Object.assign(target, {
              status: 'open',
              expiresIn: window,
              expiresAt: clock.now().getTime() + window * 1000,
              feeReserved: FEE,
            });
            model.events++;
            tally('renewed');
          } else {
            expect({ status: response.statusCode, code: response.json().code }, context).toEqual({
              status: 402,
              code: 'insufficient_credits',
            });
            tally('renew refused (credits)');
          }
        } else {
          clock.advance(pick([600, 3600, 7200, 86400, 432000]) * 1000);
          await services.invoices.expireDue();
          for (const invoice of model.invoices.filter(
            (candidate) => candidate.status === 'open' && candidate.expiresAt <= clock.now().getTime(),
          )) {
            model.reserved -= invoice.feeReserved;
            invoice.feeReserved = 0;
            invoice.status = 'expired';
            model.events++;
            tally('expired');
          }
        }

        const stored = await expectInvariants(s.workspaceId);
        expect(
          {
            balance: Number(stored.balance),
            reserved: Number(stored.reserved),
            events: stored.events,
            invoices: stored.invoices,
          },
          context,
        ).toEqual({
          balance: model.balance,
          reserved: model.reserved,
          events: model.events,
          invoices: model.invoices.length,
        });
        // No payments yet, so nothing is captured: the balance is the credits put in minus the charges.
        expect(Number(stored.balance), context).toBe(GRANT + topUp1 - model.charges);
      }

      const billing = await s.billing();
      expect(billing).toEqual(
        expect.objectContaining({
          creditBalance: model.balance,
          reservedCredits: model.reserved,
          availableCredits: model.balance - model.reserved,
        }),
      );
      const statuses = await db
        .selectFrom('invoices')
        .select(['id', 'status'])
        .where('workspace_id', '=', s.workspaceId)
        .execute();
      expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toEqual(
        Object.fromEntries(model.invoices.map((invoice) => [invoice.id, invoice.status])),
      );
      // The sequence is only worth something if it reached both sides of every rule.
      for (const outcome of ['created', 'create refused', 'cancelled', 'renewed', 'expired'])
        expect(outcomes[outcome] ?? 0, `${outcome} in ${JSON.stringify(outcomes)}`).toBeGreaterThan(0);
    },
  );
});

describe('insufficient credits', () => {
  it('refuses a create the available credits do not cover with 402, leaving no invoice, event, ledger row, number or key behind', async () => {
    const s = await shop();
    const first = await s.create({ amount: '1', expiresIn: 432000 }, 'credits-first-invoice');
    expect(first.statusCode).toBe(201);
    expect(await s.billing()).toMatchObject({ creditBalance: 2, reservedCredits: 1, availableCredits: 1 });
    const before = await expectInvariants(s.workspaceId);

    // An hour costs 1 plus the 1-credit reserve: 2 > 1.
    const refused = await s.create({ amount: '7', expiresIn: 3600 }, 'credits-retry-after-top-up');
    expect({ status: refused.statusCode, code: refused.json().code }).toEqual({
      status: 402,
      code: 'insufficient_credits',
    });
    expect(await accounts(s.workspaceId)).toEqual(before);
    const eventSeq = await db
      .selectFrom('workspaces')
      .select('event_seq')
      .where('id', '=', s.workspaceId)
      .executeTakeFirstOrThrow();
    expect(eventSeq.event_seq).toBe(1n);

    // The key was not used up: after a top-up the same request with the same key creates the invoice,
    // with the next number.
    await topUp(s.workspaceId, 10);
    const retried = await s.create({ amount: '7', expiresIn: 3600 }, 'credits-retry-after-top-up');
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(retried.json()).toMatchObject({ number: 'INV-000002', status: 'open', amount: '7.000000' });
    expect(await s.billing()).toMatchObject({ creditBalance: 11, reservedCredits: 2, availableCredits: 9 });

    // And from then on the key replays that invoice without charging again.
    const replayed = await s.create({ amount: '7', expiresIn: 3600 }, 'credits-retry-after-top-up');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().id).toBe(retried.json().id);
    expect(await s.billing()).toMatchObject({ creditBalance: 11, reservedCredits: 2 });
    await expectInvariants(s.workspaceId);
  });

  it('lets the grant pay for exactly what it covers and nothing more', async () => {
    const s = await shop();
    // 5 credits: two one-hour invoices use 2 and reserve 2; the fifth credit cannot cover another (1 + 1).
    expect((await s.create({ amount: '1' }, 'credits-grant-1')).statusCode).toBe(201);
    expect((await s.create({ amount: '1' }, 'credits-grant-2')).statusCode).toBe(201);
    expect((await s.create({ amount: '1' }, 'credits-grant-3')).statusCode).toBe(402);
    expect(await s.billing()).toMatchObject({ creditBalance: 3, reservedCredits: 2, availableCredits: 1 });
    await expectInvariants(s.workspaceId);
  });
});

describe('concurrency', () => {
  // FAILS today: create_invoice locks the workspace row (numbering) and then the credit account, while
  // cancel/renew/expire lock the credit account (moveCredits) and then the workspace row (the event
  // sequence in the event writer). Interleaved, PostgreSQL detects a deadlock (40P01) and the API
  // answers 500 internal_error. See the report.
  it('serves creates racing with cancellations of the same workspace without a 5xx, keeping the invariants', async () => {
    const s = await shop();
    await topUp(s.workspaceId, 100);
    const seeded = await Promise.all(
      Array.from({ length: 4 }, (_, i) => s.create({ amount: '1' }, `credits-race-seed-${i}`)),
    );
    const ids = seeded.map((response) => response.json<{ id: string }>().id);

    const responses = await Promise.all([
      ...ids.map((id) => s.cancel(id)),
      ...ids.map((id, i) => (i % 2 === 0 ? s.renew(id, { expiresIn: 86400 }) : Promise.resolve(undefined))),
      ...Array.from({ length: 4 }, (_, i) => s.create({ amount: '2' }, `credits-race-new-${i}`)),
    ]);
    const serverErrors = responses
      .filter((response) => response !== undefined && response.statusCode >= 500)
      .map((response) => response!.json().code as string);
    expect(serverErrors).toEqual([]);
    await expectInvariants(s.workspaceId);
  });
});
