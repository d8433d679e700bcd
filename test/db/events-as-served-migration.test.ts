import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseBeforeMigration } from '../support/migration-fixture.js';
import { presentInvoice, toInvoice } from '../../src/modules/invoices/index.js';

// A database deployed before 0010, without it.
const { pool, before } = await databaseBeforeMigration('0010');

it(
  '0010 rewrites raw-row invoice events into the API shape, links on PUBLIC_BASE_URL, and refuses without it',
  { timeout: 60_000 },
  async () => {
    await migrate(pool, before);
    const ws = 'ws_migrationtest';
    await pool.query(`INSERT INTO workspaces (id, name, wallet_address) VALUES ($1, 'shop', '0x${'ab'.repeat(20)}')`, [
      ws,
    ]);
    await pool.query('INSERT INTO credit_accounts (workspace_id, balance) VALUES ($1, 100)', [ws]);
    // Written by the old create_invoice: `invoice.created` with the raw row.
    await pool.query(
      `SELECT * FROM create_invoice($1, NULL, '\\x00', interval '1 day', 'inv_migrated', 1234567, NULL, 3600, '2026-01-02T03:04:05.678Z',
                                  'order-9', NULL, NULL, '{}', NULL, 1, 1, 'api')`,
      [ws],
    );
    await pool.query(`SET TIME ZONE 'Asia/Kolkata'`);
    await pool.query(
      `UPDATE invoices SET status = 'cancelled', cancelled_at = '2026-01-02T04:00:00Z', updated_at = '2026-01-02T04:00:00Z'`,
    );
    await pool.query(`UPDATE workspaces SET event_seq = 2`);
    await pool.query(
      `INSERT INTO events (workspace_id, id, type, invoice_id, data, created_at)
     SELECT workspace_id, 2, 'invoice.cancelled', id, jsonb_build_object('invoice', to_jsonb(i)), updated_at FROM invoices i`,
    );
    await pool.query('RESET TIME ZONE');
    const { rows: invoices } = await pool.query('SELECT * FROM invoices');
    const { rows: raw } = await pool.query('SELECT id, data FROM events ORDER BY id');
    expect(raw.map((row) => row.data.invoice.workspace_id)).toEqual([ws, ws]);

    await expect(migrate(pool)).rejects.toThrow(/PUBLIC_BASE_URL/);

    const base = new URL('https://pay.example.com');
    expect(await migrate(pool, undefined, { publicBaseUrl: base })).toContain('0010_events_as_served');
    const { rows } = await pool.query('SELECT id, data FROM events ORDER BY id');
    // The shape of an invoice when 0010 ran: the fields added since (automationId, occurrence) are not in it.
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { automationId, occurrence, ...cancelled } = presentInvoice(toInvoice(invoices[0]), base);
    expect(rows[1].data).toEqual({ invoice: cancelled });
    expect(rows[0].data).toEqual({
      invoice: { ...cancelled, status: 'open', cancelledAt: null, updatedAt: '2026-01-02T03:04:05.678Z' },
    });
    expect(rows[0].data.invoice).toMatchObject({
      number: 'INV-000001',
      amount: '1.234567',
      url: `https://pay.example.com/w/${ws}/x402/inv_migrated`,
    });

    // The new create_invoice appends its event through append_events, filling in the number and the wallet.
    await pool.query(
      `SELECT * FROM create_invoice($1, NULL, '\\x00', interval '1 day', 'inv_after', 1000000, NULL, 3600, now(), NULL, NULL, NULL, '{}', NULL, 1, 1, 'api',
                                  '{"invoice": {"id": "inv_after", "number": "", "payTo": "", "amount": "1.000000"}}')`,
      [ws],
    );
    const { rows: after } = await pool.query(
      `SELECT id, type, data, (SELECT event_seq FROM workspaces) AS seq FROM events WHERE invoice_id = 'inv_after'`,
    );
    expect(after).toEqual([
      {
        id: '3',
        type: 'invoice.created',
        data: { invoice: { id: 'inv_after', number: 'INV-000002', payTo: `0x${'ab'.repeat(20)}`, amount: '1.000000' } },
        seq: '3',
      },
    ]);
  },
);
