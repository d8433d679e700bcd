import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/shared/clock.js';
import { createTestApp, merchant, merchantApi } from '../support/app.js';

const HOUR = 3_600_000;
const clock = new ManualClock();
const { app, database } = await createTestApp({ API_RATE_LIMIT_PER_MINUTE: '1000000' }, clock);
const { db } = database;

const HEADER =
  'number,id,status,amount,currency,network,created_at,expires_at,paid_at,payer,transaction_hash,pay_to,external_id,automation_id,description';

async function shop(permissions = ['invoices:create', 'invoices:read']) {
  const { workspaceId, apiKey } = await merchant(app, permissions);
  const call = merchantApi(app, workspaceId, apiKey);
  let keys = 0;
  return {
    workspaceId,
    call,
    /** The CSV's lines, after checking the response is a CSV download. */
    export: async (query = '') => {
      const response = await call('GET', `/invoices/export${query}`);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['content-disposition']).toMatch(/^attachment; filename="invoices-ws_\w+[\w-]*\.csv"$/);
      expect(response.body.endsWith('\r\n')).toBe(true);
      return response.body.slice(0, -2).split('\r\n');
    },
    /** One invoice, created an hour after the previous one. */
    create: async (body: object = { amount: '5' }) => {
      clock.advance(HOUR);
      const response = await call('POST', '/invoices', { 'idempotency-key': `export-invoice-${++keys}` }, body);
      expect(response.statusCode, response.body).toBe(201);
      return response.json<{ id: string; number: string; createdAt: string; expiresAt: string; payTo: string }>();
    },
  };
}

/** Records the invoice as paid by a transfer, as the payment engine leaves it. */
async function markPaid(workspaceId: string, invoice: { id: string; payTo: string }, paidAt: Date) {
  await db
    .insertInto('payment_intents')
    .values({
      workspace_id: workspaceId,
      id: `pi_${invoice.id.slice(4)}`,
      invoice_id: invoice.id,
      method: 'transaction',
      status: 'succeeded',
      network: 'base-sepolia',
      amount: 12_500_000n,
      pay_to: invoice.payTo,
      payer: `0x${'a1'.repeat(20)}`,
      link_version: 1,
      tx_hash: `0x${'7e'.repeat(32)}`,
      log_index: 0,
      block_number: 100n,
      submitted_at: paidAt,
      finished_at: paidAt,
    })
    .execute();
  await db
    .updateTable('invoices')
    .set({ status: 'paid', paid_at: paidAt })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invoice.id)
    .execute();
}

// Signed in before the clock moves: a sign-in is checked against the real time.
const [accounting, ranges, quoting, reader, big, writer] = [
  await shop(),
  await shop(),
  await shop(),
  await shop(),
  await shop(),
  await shop(['invoices:create']),
];

describe('GET /invoices/export', () => {
  it('streams a header, then every invoice oldest first with its payment', async () => {
    const first = await accounting.create({ amount: '12.5', externalId: 'order-1' });
    const second = await accounting.create({ amount: '0.01' });
    const paidAt = new Date(clock.now().getTime() + 60_000);
    await markPaid(accounting.workspaceId, first, paidAt);

    const lines = await accounting.export();
    expect(lines).toEqual([
      HEADER,
      [
        first.number,
        first.id,
        'paid',
        '12.500000',
        'USDC',
        '',
        first.createdAt,
        first.expiresAt,
        paidAt.toISOString(),
        `0x${'a1'.repeat(20)}`,
        `0x${'7e'.repeat(32)}`,
        first.payTo,
        'order-1',
        '',
        '',
      ].join(','),
      [
        second.number,
        second.id,
        'open',
        '0.010000',
        'USDC',
        '',
        second.createdAt,
        second.expiresAt,
        '',
        '',
        '',
        second.payTo,
        '',
        '',
        '',
      ].join(','),
    ]);
  });

  it('keeps to one status as GET shows it and to a half-open range of creation times', async () => {
    const created = [];
    for (let i = 0; i < 4; i++) created.push(await ranges.create());
    clock.advance(25 * HOUR); // every invoice past its 24 h deadline: expired as GET shows it
    const fresh = await ranges.create();

    const numbers = (lines: string[]) => lines.slice(1).map((line) => line.split(',')[0]);
    expect(numbers(await ranges.export('?status=expired'))).toEqual(created.map((invoice) => invoice.number));
    expect(numbers(await ranges.export('?status=open'))).toEqual([fresh.number]);
    const range = `?from=${created[1]!.createdAt}&to=${created[3]!.createdAt}`;
    expect(numbers(await ranges.export(range))).toEqual([created[1]!.number, created[2]!.number]);
    expect(await ranges.export('?status=paid')).toEqual([HEADER]);
  });

  it('quotes by RFC 4180 and defuses what a spreadsheet would run as a formula', async () => {
    await quoting.create({ amount: '1', externalId: 'a,"b"' });
    await quoting.create({ amount: '1', externalId: '=HYPERLINK("http://evil")' });
    const externalIds = (await quoting.export()).slice(1).map((line) => line.split(',').slice(12, -2).join(','));
    expect(externalIds).toEqual(['"a,""b"""', `"'=HYPERLINK(""http://evil"")"`]);
  });

  it('answers 400 with a code for a malformed or empty range, and needs invoices:read', async () => {
    const malformed = await reader.call('GET', '/invoices/export?from=yesterday');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'invalid_request' });
    const backwards = await reader.call('GET', '/invoices/export?from=2026-12-01T00:00:00Z&to=2026-11-01T00:00:00Z');
    expect(backwards.statusCode).toBe(400);
    expect(backwards.json()).toMatchObject({ code: 'invalid_request', message: '`to` must be later than `from`.' });

    const refused = await writer.call('GET', '/invoices/export');
    expect(refused.statusCode).toBe(403);
  });

  it('pages through more invoices than one read holds, each exactly once', { timeout: 60_000 }, async () => {
    // Faster than 2,500 API calls: the rows as create_invoice leaves them, numbered 1…2,500.
    await db.updateTable('workspaces').set({ invoice_seq: 2500n }).where('id', '=', big.workspaceId).execute();
    const now = clock.now();
    const rows = Array.from({ length: 2500 }, (_, index) => ({
      workspace_id: big.workspaceId,
      id: `inv_bulk${index.toString().padStart(18, '0')}`,
      number: BigInt(index + 1),
      status: 'open',
      amount: 1_000_000n,
      currency: 'USDC',
      network: null,
      expires_in: 86_400,
      link_version: 1,
      expires_at: new Date(now.getTime() + 86_400_000),
      external_id: null,
      success_url: null,
      cancel_url: null,
      pay_to: `0x${'be'.repeat(20)}`,
      source: 'api',
      fee_reserved: 1n,
      created_at: now,
      updated_at: now,
    }));
    for (let start = 0; start < rows.length; start += 500)
      await db
        .insertInto('invoices')
        .values(rows.slice(start, start + 500))
        .execute();

    const lines = await big.export();
    expect(lines).toHaveLength(2501);
    expect(lines.slice(1).map((line) => line.split(',')[0])).toEqual(
      rows.map((row) => `INV-${row.number.toString().padStart(6, '0')}`),
    );
  });
});
