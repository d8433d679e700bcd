import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { searchInvoices, searchStatement } from '../../src/modules/invoice-search/search.repo.js';
import type { SearchLookups } from '../../src/modules/invoice-search/search.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import { randomToken, type WorkspaceId } from '../../src/shared/ids.js';
import { createTestDatabase } from '../support/database.js';

const database = await createTestDatabase();
const db = database.db;

const OWN = `ws_${randomToken()}` as WorkspaceId;
const OTHERS = Array.from({ length: 4 }, () => `ws_${randomToken()}`);
const OWN_INVOICES = 3000;
const OTHER_INVOICES = 2000;

/** 64 hex digits derived from the number alone, so the other workspaces hold the very same hashes. */
const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const txHashOf = (number: number) => `0x${md5(String(number))}${md5(String(-number))}`;

/**
 * Inserts invoices numbered 1…count into a workspace. Every third shares the order reference "shared"
 * and every invoice has a payment attempt, so other workspaces hold many rows equal to ours in every
 * searched column: only the workspace condition sets them apart.
 */
async function fill(workspaceId: string, count: number) {
  await sql`INSERT INTO workspaces (id, name, wallet_address) VALUES (${workspaceId}, 'Shop', '0x00000000000000000000000000000000000000aa')`.execute(
    db,
  );
  await sql`
    INSERT INTO invoices (workspace_id, id, number, status, amount, currency, expires_in, expires_at, external_id, pay_to, source, created_at, updated_at)
    SELECT ${workspaceId}, 'inv_' || substr(md5(${workspaceId} || n), 1, 26), n, 'open', 1000000, 'USDC', 3600, now() + interval '1 hour',
           CASE WHEN n % 3 = 0 THEN 'shared' ELSE 'order-' || n END, '0x00000000000000000000000000000000000000aa', 'api', now(), now()
      FROM generate_series(1, ${count}::int) n`.execute(db);
  await sql`
    INSERT INTO payment_intents (workspace_id, id, invoice_id, method, status, network, amount, pay_to, link_version, tx_hash, log_index, submitted_at)
    SELECT ${workspaceId}, 'pi_' || substr(md5(${workspaceId} || n), 1, 26), 'inv_' || substr(md5(${workspaceId} || n), 1, 26), 'transaction', 'failed',
           'base-sepolia', 1000000, '0x00000000000000000000000000000000000000aa', 1, '0x' || md5(n::text) || md5((-n)::text), 0, now()
      FROM generate_series(1, ${count}::int) n`.execute(db);
}

beforeAll(async () => {
  for (const workspaceId of OTHERS) await fill(workspaceId, OTHER_INVOICES);
  await fill(OWN, OWN_INVOICES);
  await sql`ANALYZE invoices`.execute(db);
  await sql`ANALYZE payment_intents`.execute(db);
});

const none: SearchLookups = { externalId: null, number: null, invoiceId: null, txHash: null };
const ownId = async (number: number) =>
  (await sql<{ id: InvoiceId }>`SELECT id FROM invoices WHERE workspace_id = ${OWN} AND number = ${number}`.execute(db))
    .rows[0]!.id;

async function plan(lookups: SearchLookups, before: bigint | null = null): Promise<string> {
  const statement = searchStatement(OWN, lookups, before, 26)!;
  const { rows } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${statement}`.execute(db);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

/** No table is read whole, and every index probe is confined to the own workspace. */
function expectIndexedWithinWorkspace(text: string) {
  expect(text).not.toMatch(/Seq Scan/);
  const conditions = text.split('\n').filter((line) => /Index Cond:/.test(line));
  expect(conditions.length).toBeGreaterThan(0);
  for (const condition of conditions) expect(condition).toContain(`workspace_id = '${OWN}'`);
}

describe('invoice search query plans, with thousands of invoices in other workspaces', () => {
  it('pages a common order reference backwards along (workspace_id, external_id, number), reading only the page', async () => {
    for (const before of [null, 1500n]) {
      const text = await plan({ ...none, externalId: 'shared' }, before);
      expectIndexedWithinWorkspace(text);
      expect(text).toMatch(
        /Limit[^\n]*\n\s*-> {2}Index Scan Backward using invoices_external_id_number_idx on invoices/,
      );
    }
  });

  it('reads a rare order reference through the same index', async () => {
    const text = await plan({ ...none, externalId: 'order-5' }, 1500n);
    expectIndexedWithinWorkspace(text);
    expect(text).toMatch(/invoices_external_id_number_idx/);
  });

  it('reads a number through (workspace_id, number) and an id or link through the primary key', async () => {
    const byNumber = await plan({ ...none, number: 42n });
    expectIndexedWithinWorkspace(byNumber);
    expect(byNumber).toMatch(/Index Scan using invoices_workspace_id_number_key on invoices/);
    const byId = await plan({ ...none, invoiceId: await ownId(42) });
    expectIndexedWithinWorkspace(byId);
    expect(byId).toMatch(/Index Scan using invoices_pkey on invoices/);
  });

  it('reads a transaction hash through (workspace_id, tx_hash), then the invoices by key', async () => {
    const text = await plan({ ...none, txHash: txHashOf(42) });
    expectIndexedWithinWorkspace(text);
    expect(text).toMatch(/Index (Only )?Scan using payment_intents_workspace_tx_hash_idx on payment_intents/);
    expect(text).toMatch(/Index Scan using invoices_pkey on invoices/);
  });

  it('combines every kind in one statement, each branch through its index', async () => {
    const text = await plan(
      { externalId: 'shared', number: 42n, invoiceId: await ownId(41), txHash: txHashOf(40) },
      1500n,
    );
    expectIndexedWithinWorkspace(text);
    for (const index of [
      'invoices_external_id_number_idx',
      'invoices_workspace_id_number_key',
      'invoices_pkey',
      'payment_intents_workspace_tx_hash_idx',
    ]) {
      expect(text).toContain(index);
    }
  });

  it('answers only the own workspace though the others hold the same values', async () => {
    const found = await searchInvoices(
      db,
      OWN,
      { externalId: 'shared', number: 7n, invoiceId: null, txHash: txHashOf(8) },
      null,
      2000,
    );
    expect(found.every((invoice) => invoice.workspaceId === OWN)).toBe(true);
    const expected = [...Array.from({ length: OWN_INVOICES / 3 }, (_, i) => BigInt(OWN_INVOICES - 3 * i)), 8n, 7n].sort(
      (a, b) => (a < b ? 1 : -1),
    );
    expect(found.map((invoice) => invoice.number)).toEqual(expected);
  });
});
