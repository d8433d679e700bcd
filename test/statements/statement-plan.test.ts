import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { readStatementFacts } from '../../src/modules/statements/statement.repo.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestDatabase } from '../support/database.js';
import { planOf as planOfStatement } from '../support/query-plan.js';

// A statement of one month of a workspace with years of history, beside another busy workspace: every
// part must read the month through an index, never the workspace's whole history or a whole table.

const database = await createTestDatabase();
const { db } = database;
const HISTORY = 20_000;
const SHOP = 'ws_statementplan' as WorkspaceId;
const OTHER = 'ws_statementother';
const WALLET = '0x00000000000000000000000000000000000000aa';

beforeAll(async () => {
  for (const id of [SHOP, OTHER]) {
    await sql`INSERT INTO workspaces (id, name, wallet_address) VALUES (${id}, 'Shop', ${WALLET})`.execute(db);
    await sql`INSERT INTO credit_accounts (workspace_id, balance) VALUES (${id}, 1000000)`.execute(db);
    // One invoice an hour for HISTORY hours (about two years and four months) back from 2026-06-01.
    await sql`
      INSERT INTO invoices (workspace_id, id, number, status, amount, currency, expires_in, expires_at, pay_to, source,
                            fee_reserved, created_at, updated_at, paid_at, cancelled_at, expired_at)
      SELECT ${id}, 'inv_' || n, n, s.status, 1000000, 'USDC', 3600, t + interval '1 hour', ${WALLET}, 'api', 0, t, t,
             CASE WHEN s.status = 'paid' THEN t + interval '10 minutes' END,
             CASE WHEN s.status = 'cancelled' THEN t + interval '5 minutes' END,
             CASE WHEN s.status = 'expired' THEN t + interval '1 hour' END
        FROM generate_series(1, ${HISTORY}::int) n
       CROSS JOIN LATERAL (SELECT timestamptz '2026-06-01' - n * interval '1 hour' AS t) ts
       CROSS JOIN LATERAL (SELECT CASE n % 4 WHEN 0 THEN 'paid' WHEN 1 THEN 'cancelled' WHEN 2 THEN 'expired' ELSE 'paid' END AS status) s`.execute(
      db,
    );
    await sql`
      INSERT INTO payment_intents (workspace_id, id, invoice_id, method, status, network, amount, pay_to, link_version, submitted_at)
      SELECT workspace_id, 'pi_' || id, id, 'transaction', 'succeeded', 'base-sepolia', amount, pay_to, 1, paid_at
        FROM invoices WHERE workspace_id = ${id} AND status = 'paid'`.execute(db);
    await sql`
      INSERT INTO credit_ledger (workspace_id, kind, balance_change, reference, created_at)
      SELECT ${id}, 'invoice.created', -1, 'inv_' || n, timestamptz '2026-06-01' - (${HISTORY}::int - n) * interval '1 hour'
        FROM generate_series(1, ${HISTORY}::int) n`.execute(db);
  }
  for (const table of ['invoices', 'payment_intents', 'credit_ledger'])
    await sql`ANALYZE ${sql.table(table)}`.execute(db);
});

const planOf = (read: Parameters<typeof planOfStatement>[1]) => planOfStatement(database.pool, read);

it("reads one month of a long history through the month's index ranges", async () => {
  const period = { from: new Date('2026-05-01Z'), to: new Date('2026-06-01Z'), now: new Date('2026-06-15Z') };
  const plan = await planOf((reader) => readStatementFacts(reader, SHOP, period));
  expect(plan).not.toMatch(/Seq Scan/);
  for (const index of [
    'invoices_created_idx',
    'invoices_paid_idx',
    'invoices_cancelled_idx',
    'invoices_expired_idx',
    'credit_ledger_seq_key',
  ])
    expect(plan).toContain(index);

  const facts = await readStatementFacts(db, SHOP, period);
  // May has 31 × 24 hours, one invoice each; a quarter of them cancelled, a quarter expired, half paid.
  expect(facts).toMatchObject({ invoicesCreated: 744, invoicesCancelled: 186, invoicesExpired: 186 });
  expect(facts!.paid).toEqual([{ currency: 'USDC', network: 'base-sepolia', invoices: 372, amount: 372_000_000n }]);
  expect(facts!.movements).toEqual([{ kind: 'invoice.created', entries: 744, credited: 0n, debited: 744n }]);
});
