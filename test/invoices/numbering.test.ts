import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { ORIGIN, createTestApp, merchant } from '../support/app.js';

const { app, services, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' });
const db = database.db;

async function shop() {
  const m = await merchant(app, ['invoices:create', 'payments:read', 'billing:read', 'settings:write']);
  let keys = 0;
  const call = (method: 'GET' | 'POST' | 'PUT', path: string, payload?: object, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url: `/w/${m.workspaceId}/v1${path}`,
      headers: { authorization: `Bearer ${m.apiKey}`, ...headers },
      ...(payload ? { payload } : {}),
    });
  return {
    ...m,
    call,
    create: (body: object = { amount: '1' }, key = `numbering-${++keys}-${m.workspaceId}`) =>
      call('POST', '/invoices', body, { 'idempotency-key': key }),
  };
}

async function counters(workspaceId: string) {
  const row = await db
    .selectFrom('workspaces')
    .select(['invoice_seq', 'event_seq'])
    .where('id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  const invoices = await db
    .selectFrom('invoices')
    .select('number')
    .where('workspace_id', '=', workspaceId)
    .orderBy('number')
    .execute();
  return { invoiceSeq: row.invoice_seq, eventSeq: row.event_seq, numbers: invoices.map((invoice) => invoice.number) };
}

it('keeps counting past INV-999999: INV-1000000, INV-1000001', async () => {
  const s = await shop();
  await sql`UPDATE workspaces SET invoice_seq = 999999 WHERE id = ${s.workspaceId}`.execute(db);
  const first = await s.create();
  expect(first.statusCode).toBe(201);
  expect(first.json().number).toBe('INV-1000000');
  const second = await s.create();
  expect(second.json().number).toBe('INV-1000001');
  expect((await s.call('GET', `/invoices/${first.json<{ id: string }>().id}`)).json().number).toBe('INV-1000000');
  expect((await counters(s.workspaceId)).numbers).toEqual([1000000n, 1000001n]);
});

it('numbers each workspace on its own, starting at INV-000001', async () => {
  const a = await shop();
  const b = await shop();
  expect((await a.create()).json().number).toBe('INV-000001');
  expect((await b.create()).json().number).toBe('INV-000001');
  expect((await a.create()).json().number).toBe('INV-000002');
});

it('consumes no number for a refused create: the next created invoice takes the next number, without a gap', async () => {
  const s = await shop();
  expect((await s.call('PUT', '/checkout-settings', { origins: ['https://shop.example.com'] })).statusCode).toBe(200);
  expect((await s.create()).json().number).toBe('INV-000001');
  const before = await counters(s.workspaceId);

  const refusals = [
    [{ amount: '1', payTo: '0x000000000000000000000000000000000000dEaD' }, 403, 'pay_to_mismatch'],
    [{ amount: '1', successUrl: 'https://elsewhere.example.com/thanks' }, 400, 'return_origin_not_allowed'],
    [{ amount: '0' }, 400, 'invalid_amount'],
    [{ amount: '1', expiresIn: 7200 }, 400, 'invalid_expires_in'],
    [{ amount: '1', number: 'INV-000002' }, 400, 'number_not_allowed'],
  ] as const;
  for (const [body, status, code] of refusals) {
    const response = await s.create(body);
    expect({ status: response.statusCode, code: response.json().code }).toEqual({ status, code });
  }
  // Insufficient credits: available 3, five days cost 3 plus the reserve.
  await sql`UPDATE credit_accounts SET balance = reserved + 3 WHERE workspace_id = ${s.workspaceId}`.execute(db);
  const poor = await s.create({ amount: '1', expiresIn: 432000 });
  expect({ status: poor.statusCode, code: poor.json().code }).toEqual({ status: 402, code: 'insufficient_credits' });
  expect(await counters(s.workspaceId)).toEqual(before);

  expect((await s.create({ amount: '1', successUrl: 'https://shop.example.com/thanks' })).json().number).toBe(
    'INV-000002',
  );
});

it('shares one sequence between portal and API invoices', async () => {
  const s = await shop();
  const portal = (amount: string) =>
    app.inject({
      method: 'POST',
      url: `/portal/api/w/${s.workspaceId}/invoices`,
      headers: { cookie: s.cookie, origin: ORIGIN },
      payload: { amount },
    });
  expect((await s.create()).json().number).toBe('INV-000001');
  const manual = await portal('12,50');
  expect(manual.statusCode).toBe(201);
  expect(manual.json()).toMatchObject({ number: 'INV-000002', amount: '12.500000' });
  expect((await s.create()).json().number).toBe('INV-000003');
});

it('never changes or reuses a number on renewal, cancellation, expiry or an idempotent retry', async () => {
  const s = await shop();
  const created = await s.create({ amount: '1' }, 'numbering-retry-key');
  const invoice = created.json<{ id: string; number: string }>();
  expect(invoice.number).toBe('INV-000001');

  const renewed = await s.call('POST', `/invoices/${invoice.id}/renew`, { expiresIn: 86400 });
  expect(renewed.json()).toMatchObject({ number: 'INV-000001', linkVersion: 2 });
  const cancelled = await s.call('POST', `/invoices/${invoice.id}/cancel`);
  expect(cancelled.json()).toMatchObject({ number: 'INV-000001', status: 'cancelled' });
  const retried = await s.create({ amount: '1' }, 'numbering-retry-key');
  expect(retried.statusCode).toBe(201);
  expect(retried.headers['idempotent-replayed']).toBe('true');
  expect(retried.json()).toMatchObject({ id: invoice.id, number: 'INV-000001' });

  const expiring = (await s.create()).json<{ id: string; number: string }>();
  expect(expiring.number).toBe('INV-000002');
  await sql`UPDATE invoices SET expires_at = ${new Date(services.clock.now().getTime() - 1000)} WHERE id = ${expiring.id}`.execute(
    db,
  );
  await services.invoices.expireDue();
  expect((await s.call('GET', `/invoices/${expiring.id}`)).json()).toMatchObject({
    status: 'expired',
    number: 'INV-000002',
  });

  expect((await s.create()).json().number).toBe('INV-000003');
  expect((await counters(s.workspaceId)).numbers).toEqual([1n, 2n, 3n]);
});
