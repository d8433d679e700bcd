import pg from 'pg';
import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { createTestApp, merchant } from '../support/app.js';

// An upgrade of a database whose invoices were paid before receipts were numbered: migration 0009 numbers
// them per workspace in the order they were paid, and numbering goes on from there.
const { app, database } = await createTestApp();

async function invoicesOf(shop: { workspaceId: string; apiKey: string }, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const response = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `backfill-${shop.workspaceId}-${n}` },
      payload: { amount: '1.00' },
    });
    expect(response.statusCode, response.body).toBe(201);
    ids.push(response.json<{ id: string }>().id);
  }
  return ids;
}

it('numbers the receipts of invoices paid before 0009 per workspace, in the order they were paid', async () => {
  const { db } = database;
  const first = await merchant(app, ['invoices:create']);
  const second = await merchant(app, ['invoices:create']);
  const [a1, a2, a3] = await invoicesOf(first, 3);
  const [b1] = await invoicesOf(second, 1);
  // Paid out of creation order (a3 first); a2 stays open.
  const paid = (id: string, at: string) =>
    db
      .updateTable('invoices')
      .set({ status: 'paid', paid_at: new Date(at) })
      .where('id', '=', id)
      .execute();
  await paid(a3!, '2026-11-01T10:00:00Z');
  await paid(a1!, '2026-11-01T11:00:00Z');
  await paid(b1!, '2026-11-01T09:00:00Z');

  // The database as it was before 0009.
  const pool = new pg.Pool(database.connection);
  try {
    await pool.query('DROP TABLE receipts, receipt_counters');
    await pool.query("DELETE FROM schema_migrations WHERE version = '0009_receipts'");
    expect(await migrate(pool)).toEqual(['0009_receipts']);
  } finally {
    await pool.end();
  }

  const receipts = await db
    .selectFrom('receipts')
    .select(['workspace_id', 'number', 'invoice_id'])
    .orderBy('issued_at')
    .execute();
  expect(receipts.map((row) => [row.invoice_id, Number(row.number)])).toEqual([
    [b1, 1],
    [a3, 1],
    [a1, 2],
  ]);
  expect(receipts.some((row) => row.invoice_id === a2)).toBe(false);
  const counters = await db.selectFrom('receipt_counters').select(['workspace_id', 'last_number']).execute();
  expect(Object.fromEntries(counters.map((row) => [row.workspace_id, Number(row.last_number)]))).toEqual({
    [first.workspaceId]: 2,
    [second.workspaceId]: 1,
  });
});
