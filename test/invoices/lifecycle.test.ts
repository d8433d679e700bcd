import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { JobRunner } from '../../src/jobs/index.js';
import { jobHandlers, scheduleRecurringJobs } from '../../src/main/jobs.js';
import { ManualClock } from '../../src/shared/clock.js';
import { ORIGIN, createKey, createTestApp, createWorkspace, newWallet, signedSiwe } from '../support/app.js';

const HOUR = 3_600_000;
const clock = new ManualClock();
const { app, services, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' }, clock);
const db = database.db;

interface InvoiceBody {
  id: string;
  number: string;
  status: string;
  expiresIn: number;
  expiresAt: string;
  linkVersion: number;
  expiredAt: string | null;
  cancelledAt: string | null;
}

/**
 * A wallet with a workspace (default grant, 100 credits) and a key. Signs in at the manual clock's
 * time, so shops can be made after the clock moved.
 */
async function shop() {
  const wallet = newWallet();
  const verify = await app.inject({
    method: 'POST',
    url: '/auth/verify',
    headers: { origin: ORIGIN },
    payload: await signedSiwe(app, wallet, { issuedAt: clock.now() }),
  });
  expect(verify.statusCode).toBe(200);
  const cookie = `invoice_session=${verify.cookies.find((candidate) => candidate.name === 'invoice_session')!.value}`;
  const workspaceId = await createWorkspace(app, cookie);
  const key = await createKey(app, cookie, workspaceId, ['invoices:create', 'payments:read', 'billing:read']);
  expect(key.statusCode).toBe(201);
  const apiKey = key.json<{ secret: string }>().secret;
  const call = (method: 'GET' | 'POST', path: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `/w/${workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  let keys = 0;
  return {
    workspaceId,
    wallet: wallet.address,
    call,
    create: async (body: object = { amount: '10' }) => {
      const response = await call('POST', '/invoices', body, {
        'idempotency-key': `lifecycle-${++keys}-${workspaceId}`,
      });
      expect(response.statusCode).toBe(201);
      return response.json<InvoiceBody>();
    },
    get: (id: string) => call('GET', `/invoices/${id}`),
    cancel: (id: string) => call('POST', `/invoices/${id}/cancel`),
    renew: (id: string, body?: object) => call('POST', `/invoices/${id}/renew`, body),
    billing: async () =>
      (await call('GET', '/billing')).json<{
        creditBalance: number;
        reservedCredits: number;
        availableCredits: number;
      }>(),
  };
}

type Shop = Awaited<ReturnType<typeof shop>>;

async function storedInvoice(workspaceId: string, id: string) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

async function events(workspaceId: string) {
  const rows = await db
    .selectFrom('events')
    .select(['id', 'type', 'invoice_id'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: Number(row.id), type: row.type, invoiceId: row.invoice_id }));
}

async function ledger(workspaceId: string) {
  const rows = await db
    .selectFrom('credit_ledger')
    .select(['kind', 'balance_change', 'reserve_change', 'reference'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    kind: row.kind,
    balance: Number(row.balance_change),
    reserve: Number(row.reserve_change),
    reference: row.reference,
  }));
}

/** Puts an invoice into a state no API of this module reaches yet (payments come later). */
async function forceStatus(workspaceId: string, id: string, status: 'paid' | 'processing') {
  await db
    .updateTable('invoices')
    .set({ status, ...(status === 'paid' && { paid_at: clock.now(), fee_reserved: 0n }) })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/** Everything a refused command must leave as it was. */
async function footprint(s: Shop, id: string) {
  return {
    invoice: await storedInvoice(s.workspaceId, id),
    events: await events(s.workspaceId),
    ledger: await ledger(s.workspaceId),
    billing: await s.billing(),
  };
}

async function expectRefused(
  s: Shop,
  id: string,
  command: () => Promise<{ statusCode: number; json: () => { code: string } }>,
  status: number,
  code: string,
) {
  const before = await footprint(s, id);
  const response = await command();
  expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
  expect(await footprint(s, id)).toEqual(before);
}

/** Waits, bounded, until `check` holds. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('expiry', () => {
  it('shows an open invoice as expired from its deadline on, before the expiry job has recorded it', async () => {
    const s = await shop();
    const invoice = await s.create();
    expect((await s.get(invoice.id)).json()).toMatchObject({ status: 'open', expiredAt: null });

    clock.advance(HOUR - 1);
    expect((await s.get(invoice.id)).json().status).toBe('open');
    clock.advance(1);
    expect((await s.get(invoice.id)).json()).toMatchObject({ status: 'expired', expiredAt: invoice.expiresAt });

    // Only the reading changed: the row, its reserve and the feed wait for the job.
    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({
      status: 'open',
      fee_reserved: 1n,
      expired_at: null,
    });
    expect(await s.billing()).toMatchObject({ creditBalance: 99, reservedCredits: 1 });
    expect((await events(s.workspaceId)).map((event) => event.type)).toEqual(['invoice.created']);
  });

  it('records expiry through the real job runner: row expired, reserve released, one invoice.expired event', async () => {
    const s = await shop();
    const invoice = await s.create({ amount: '10', expiresIn: 86400 });
    // Expiry is recorded as of the deadline, however late the job runs.
    const expiredAt = new Date(invoice.expiresAt);
    clock.advance(24 * HOUR + 1000);

    const runner = new JobRunner({
      db,
      connection: database.connection,
      handlers: jobHandlers(services),
      pollIntervalMs: 200,
    });
    await scheduleRecurringJobs(services);
    await runner.start();
    try {
      await eventually(async () => (await storedInvoice(s.workspaceId, invoice.id)).status === 'expired');
    } finally {
      await runner.stop();
    }

    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({
      status: 'expired',
      fee_reserved: 0n,
      expired_at: expiredAt,
    });
    expect(await s.billing()).toMatchObject({ creditBalance: 98, reservedCredits: 0, availableCredits: 98 });
    expect((await ledger(s.workspaceId)).slice(1)).toEqual([
      { kind: 'invoice.created', balance: -2, reserve: 1, reference: invoice.id },
      { kind: 'invoice.expired', balance: 0, reserve: -1, reference: invoice.id },
    ]);
    expect(await events(s.workspaceId)).toEqual([
      { id: 1, type: 'invoice.created', invoiceId: invoice.id },
      { id: 2, type: 'invoice.expired', invoiceId: invoice.id },
    ]);
    expect((await s.get(invoice.id)).json()).toMatchObject({ status: 'expired', expiredAt: expiredAt.toISOString() });

    // Expiring again is a no-op: no second event, no second release.
    expect(await services.invoices.expireDue()).toBe(0);
    expect(await events(s.workspaceId)).toHaveLength(2);
  });
});

describe('cancel', () => {
  it('cancels an open invoice, releasing its reserve, with one invoice.cancelled event', async () => {
    const s = await shop();
    const invoice = await s.create();
    const response = await s.cancel(invoice.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: invoice.id,
      number: invoice.number,
      status: 'cancelled',
      cancelledAt: clock.now().toISOString(),
    });
    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({ status: 'cancelled', fee_reserved: 0n });
    expect(await s.billing()).toMatchObject({ creditBalance: 99, reservedCredits: 0 });
    expect((await ledger(s.workspaceId)).at(-1)).toEqual({
      kind: 'invoice.cancelled',
      balance: 0,
      reserve: -1,
      reference: invoice.id,
    });
    expect((await events(s.workspaceId)).map((event) => event.type)).toEqual(['invoice.created', 'invoice.cancelled']);
  });

  it('cancels an expired invoice without moving credits again', async () => {
    const s = await shop();
    const invoice = await s.create();
    clock.advance(HOUR);
    await services.invoices.expireDue();
    const ledgerBefore = await ledger(s.workspaceId);

    const response = await s.cancel(invoice.id);
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('cancelled');
    expect(await ledger(s.workspaceId)).toEqual(ledgerBefore);
    expect(await s.billing()).toMatchObject({ creditBalance: 99, reservedCredits: 0 });
    expect((await events(s.workspaceId)).map((event) => event.type)).toEqual([
      'invoice.created',
      'invoice.expired',
      'invoice.cancelled',
    ]);
  });

  it('cancels an invoice past its deadline that the job has not expired yet, releasing its reserve once', async () => {
    const s = await shop();
    const invoice = await s.create();
    clock.advance(HOUR + 1);
    expect((await s.cancel(invoice.id)).json().status).toBe('cancelled');
    expect(await s.billing()).toMatchObject({ creditBalance: 99, reservedCredits: 0 });
    // The job must not expire (and release) it afterwards.
    await services.invoices.expireDue();
    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({ status: 'cancelled', fee_reserved: 0n });
    expect((await events(s.workspaceId)).map((event) => event.type)).toEqual(['invoice.created', 'invoice.cancelled']);
  });

  it('answers a repeated cancel with the cancelled invoice, changing nothing', async () => {
    // Clients retry after timeouts: cancelling twice must not fail or move anything.
    const s = await shop();
    const invoice = await s.create();
    const first = await s.cancel(invoice.id);
    const before = await footprint(s, invoice.id);
    const again = await s.cancel(invoice.id);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await footprint(s, invoice.id)).toEqual(before);
  });

  it('refuses to cancel a paid invoice (409 invoice_already_paid) or one being paid (409 invoice_processing)', async () => {
    const s = await shop();
    const paid = await s.create();
    await forceStatus(s.workspaceId, paid.id, 'paid');
    await expectRefused(s, paid.id, () => s.cancel(paid.id), 409, 'invoice_already_paid');

    const processing = await s.create();
    await forceStatus(s.workspaceId, processing.id, 'processing');
    await expectRefused(s, processing.id, () => s.cancel(processing.id), 409, 'invoice_processing');
    // Past its deadline a payment being verified still blocks cancellation.
    clock.advance(HOUR + 1);
    await expectRefused(s, processing.id, () => s.cancel(processing.id), 409, 'invoice_processing');
  });
});

describe('renew', () => {
  it('renews an open invoice: new deadline from now, next link version, same number, charges the window, one reserve', async () => {
    const s = await shop();
    const invoice = await s.create({ amount: '10', expiresIn: 86400 });
    expect(await s.billing()).toMatchObject({ creditBalance: 98, reservedCredits: 1 });

    clock.advance(HOUR / 2);
    const kept = await s.renew(invoice.id);
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toMatchObject({
      id: invoice.id,
      number: invoice.number,
      status: 'open',
      expiresIn: 86400,
      linkVersion: 2,
      expiresAt: new Date(clock.now().getTime() + 24 * HOUR).toISOString(),
    });
    expect(await s.billing()).toMatchObject({ creditBalance: 96, reservedCredits: 1 });

    const tariff = [
      [3600, 1],
      [86400, 2],
      [432000, 3],
    ] as const;
    let balance = 96;
    for (const [expiresIn, credits] of tariff) {
      clock.advance(60_000);
      const response = await s.renew(invoice.id, { expiresIn });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        number: invoice.number,
        status: 'open',
        expiresIn,
        expiresAt: new Date(clock.now().getTime() + expiresIn * 1000).toISOString(),
      });
      balance -= credits;
      expect(await s.billing()).toMatchObject({ creditBalance: balance, reservedCredits: 1 });
    }
    expect((await s.get(invoice.id)).json()).toMatchObject({
      linkVersion: 5,
      expiresIn: 432000,
      number: invoice.number,
    });
    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({ fee_reserved: 1n, number: 1n });
    expect((await ledger(s.workspaceId)).slice(1)).toEqual([
      { kind: 'invoice.created', balance: -2, reserve: 1, reference: invoice.id },
      ...[2, 1, 2, 3].map((credits) => ({
        kind: 'invoice.renewed',
        balance: -credits,
        reserve: 0,
        reference: invoice.id,
      })),
    ]);
    expect((await events(s.workspaceId)).map((event) => event.type)).toEqual([
      'invoice.created',
      ...Array<string>(4).fill('invoice.renewed'),
    ]);
  });

  it('reopens an expired invoice, taking its reserve again', async () => {
    const s = await shop();
    const invoice = await s.create();
    clock.advance(HOUR);
    await services.invoices.expireDue();
    expect(await s.billing()).toMatchObject({ creditBalance: 99, reservedCredits: 0 });

    const response = await s.renew(invoice.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      status: 'open',
      number: invoice.number,
      linkVersion: 2,
      expiresAt: new Date(clock.now().getTime() + HOUR).toISOString(),
    });
    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({ status: 'open', fee_reserved: 1n });
    expect(await s.billing()).toMatchObject({ creditBalance: 98, reservedCredits: 1 });
    expect((await ledger(s.workspaceId)).at(-1)).toEqual({
      kind: 'invoice.renewed',
      balance: -1,
      reserve: 1,
      reference: invoice.id,
    });
    expect((await events(s.workspaceId)).map((event) => event.type)).toEqual([
      'invoice.created',
      'invoice.expired',
      'invoice.renewed',
    ]);
  });

  it('reopens an invoice past its deadline that the job has not expired yet, keeping its one reserve', async () => {
    const s = await shop();
    const invoice = await s.create();
    clock.advance(2 * HOUR);
    const response = await s.renew(invoice.id);
    expect(response.json()).toMatchObject({ status: 'open', linkVersion: 2 });
    expect(await s.billing()).toMatchObject({ creditBalance: 98, reservedCredits: 1 });
    await services.invoices.expireDue();
    expect(await storedInvoice(s.workspaceId, invoice.id)).toMatchObject({ status: 'open', fee_reserved: 1n });
    expect((await s.get(invoice.id)).json().status).toBe('open');
  });

  it('refuses to renew an invoice issued for another receiving address with 409, charging nothing', async () => {
    const s = await shop();
    const open = await s.create();
    const expired = await s.create();
    clock.advance(HOUR);
    await services.invoices.expireDue();
    // As if both were issued while the workspace received at another address.
    await sql`UPDATE invoices SET pay_to = '0x000000000000000000000000000000000000dead'
              WHERE id IN (${open.id}, ${expired.id})`.execute(db);
    const billing = await s.billing();

    await expectRefused(s, open.id, () => s.renew(open.id), 409, 'invoice_recipient_changed');
    await expectRefused(
      s,
      expired.id,
      () => s.renew(expired.id, { expiresIn: 86400 }),
      409,
      'invoice_recipient_changed',
    );
    // The workspace wallet as payTo does not make it renewable either: the link would still pay the old address.
    await expectRefused(s, open.id, () => s.renew(open.id, { payTo: s.wallet }), 409, 'invoice_recipient_changed');
    expect(await s.billing()).toEqual(billing);
    // It can still be cancelled, which releases its reserve.
    expect((await s.cancel(open.id)).json()).toMatchObject({ status: 'cancelled' });
  });

  it('takes payTo as POST /invoices does: the workspace wallet in any case renews, another address is 403', async () => {
    const s = await shop();
    const invoice = await s.create();
    for (const payTo of [s.wallet, s.wallet.toLowerCase(), s.wallet.toUpperCase().replace('0X', '0x')]) {
      const response = await s.renew(invoice.id, { payTo });
      expect({ status: response.statusCode, payTo: response.json().payTo }).toEqual({
        status: 200,
        payTo: s.wallet.toLowerCase(),
      });
    }
    expect((await s.get(invoice.id)).json()).toMatchObject({ linkVersion: 4, payTo: s.wallet.toLowerCase() });
    for (const payTo of ['0x000000000000000000000000000000000000dEaD', 'not an address', '']) {
      await expectRefused(s, invoice.id, () => s.renew(invoice.id, { payTo }), 403, 'pay_to_mismatch');
    }
    await expectRefused(s, invoice.id, () => s.renew(invoice.id, { payTo: 42 }), 400, 'invalid_request');
  });

  it('refuses to renew paid, cancelled and processing invoices with 409, changing nothing', async () => {
    const s = await shop();
    const paid = await s.create();
    await forceStatus(s.workspaceId, paid.id, 'paid');
    await expectRefused(s, paid.id, () => s.renew(paid.id), 409, 'invoice_already_paid');

    const cancelled = await s.create();
    await s.cancel(cancelled.id);
    await expectRefused(s, cancelled.id, () => s.renew(cancelled.id, { expiresIn: 3600 }), 409, 'invoice_cancelled');

    const processing = await s.create();
    await forceStatus(s.workspaceId, processing.id, 'processing');
    await expectRefused(s, processing.id, () => s.renew(processing.id), 409, 'invoice_processing');
  });

  it('refuses an expiresIn other than 3600, 86400 or 432000 with 400 invalid_expires_in', async () => {
    const s = await shop();
    const invoice = await s.create();
    for (const expiresIn of [7200, 0, -3600, 3600.5]) {
      await expectRefused(s, invoice.id, () => s.renew(invoice.id, { expiresIn }), 400, 'invalid_expires_in');
    }
  });

  it('refuses a renewal the available credits do not cover with 402 insufficient_credits, changing nothing', async () => {
    const s = await shop();
    const expired = await s.create();
    clock.advance(30 * 60_000);
    const open = await s.create();
    clock.advance(30 * 60_000);
    await services.invoices.expireDue(); // `expired` is due, `open` has 30 minutes left

    await sql`UPDATE credit_accounts SET balance = reserved + 2 WHERE workspace_id = ${s.workspaceId}`.execute(db);
    // Available 2: five days cost 3.
    await expectRefused(s, open.id, () => s.renew(open.id, { expiresIn: 432000 }), 402, 'insufficient_credits');
    // An expired invoice must take its reserve again too: a day (2) plus the reserve (1) is 3.
    await expectRefused(s, expired.id, () => s.renew(expired.id, { expiresIn: 86400 }), 402, 'insufficient_credits');
    // An hour (1) plus the reserve (1) is exactly what is available.
    expect((await s.renew(expired.id, { expiresIn: 3600 })).statusCode).toBe(200);
    expect(await s.billing()).toMatchObject({ availableCredits: 0, reservedCredits: 2 });
    await expectRefused(s, open.id, () => s.renew(open.id), 402, 'insufficient_credits');
  });
});

describe('tenancy', () => {
  it("answers 404 for another workspace's invoice id on read, cancel and renew, and leaves it alone", async () => {
    const owner = await shop();
    const stranger = await shop();
    const invoice = await owner.create();
    const before = await footprint(owner, invoice.id);
    for (const response of [
      await stranger.get(invoice.id),
      await stranger.cancel(invoice.id),
      await stranger.renew(invoice.id, { expiresIn: 3600 }),
    ]) {
      expect({ status: response.statusCode, code: response.json().code }).toEqual({ status: 404, code: 'not_found' });
    }
    expect(await footprint(owner, invoice.id)).toEqual(before);
    expect(await events(stranger.workspaceId)).toEqual([]);
    expect(await stranger.billing()).toMatchObject({ creditBalance: 100, reservedCredits: 0 });
  });
});

describe('change feed', () => {
  it('writes exactly one event per state change, numbered 1, 2, 3, … per workspace, and none for refusals', async () => {
    const s = await shop();
    const other = await shop();
    const a = await s.create();
    await other.create();
    const b = await s.create({ amount: '3', expiresIn: 86400 });
    await s.renew(a.id);
    await s.cancel(a.id);
    await s.cancel(a.id); // refused
    await s.renew(a.id); // refused
    clock.advance(HOUR);
    await services.invoices.expireDue(); // a is cancelled; b is not due
    await other.create();
    clock.advance(24 * HOUR);
    await services.invoices.expireDue();
    await s.renew(b.id, { expiresIn: 3600 });
    await s.cancel(b.id);

    expect(await events(s.workspaceId)).toEqual([
      { id: 1, type: 'invoice.created', invoiceId: a.id },
      { id: 2, type: 'invoice.created', invoiceId: b.id },
      { id: 3, type: 'invoice.renewed', invoiceId: a.id },
      { id: 4, type: 'invoice.cancelled', invoiceId: a.id },
      { id: 5, type: 'invoice.expired', invoiceId: b.id },
      { id: 6, type: 'invoice.renewed', invoiceId: b.id },
      { id: 7, type: 'invoice.cancelled', invoiceId: b.id },
    ]);
    expect((await events(other.workspaceId)).map((event) => [event.id, event.type])).toEqual([
      [1, 'invoice.created'],
      [2, 'invoice.expired'],
      [3, 'invoice.created'],
      [4, 'invoice.expired'],
    ]);
    // Each event carries the invoice as it was after that change.
    const { rows } = await sql<{ id: string; status: string; link_version: number }>`
      SELECT id::text, data->'invoice'->>'status' AS status, (data->'invoice'->>'linkVersion')::int AS link_version
        FROM events WHERE workspace_id = ${s.workspaceId} ORDER BY id`.execute(db);
    expect(rows.map((row) => [row.status, row.link_version])).toEqual([
      ['open', 1],
      ['open', 1],
      ['open', 2],
      ['cancelled', 2],
      ['expired', 1],
      ['open', 2],
      ['cancelled', 2],
    ]);
  });
});
