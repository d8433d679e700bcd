import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { moveCredits } from '../../src/modules/billing/index.js';
import { WorkspaceWrites } from '../../src/modules/events/index.js';
import { receiptIssues } from '../../src/modules/receipts/index.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createTestApp, merchant } from '../support/app.js';

const GRANT = 20;
const { app, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: String(GRANT) });
const db = database.db;

async function workspace(): Promise<WorkspaceId> {
  return (await merchant(app, ['invoices:create'])).workspaceId as WorkspaceId;
}

/** A workspace with `count` invoices (receipts name real invoices). */
async function shopWithInvoices(count: number): Promise<{ ws: WorkspaceId; invoices: string[] }> {
  const shop = await merchant(app, ['invoices:create']);
  const invoices: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const response = await app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': `late-writes-${index}` },
      payload: { amount: '1' },
    });
    expect(response.statusCode).toBe(201);
    invoices.push(response.json<{ id: string }>().id);
  }
  return { ws: shop.workspaceId as WorkspaceId, invoices };
}

async function account(workspaceId: WorkspaceId) {
  const { rows } = await sql<{ balance: bigint; reserved: bigint }>`
    SELECT balance, reserved FROM credit_accounts WHERE workspace_id = ${workspaceId}`.execute(db);
  return rows[0]!;
}

async function ledger(workspaceId: WorkspaceId) {
  const { rows } = await sql<{ seq: bigint; kind: string; balance_change: bigint; balance_after: bigint }>`
    SELECT seq, kind, balance_change, balance_after FROM credit_ledger WHERE workspace_id = ${workspaceId}
     ORDER BY seq`.execute(db);
  return rows.map((row) => [Number(row.seq), row.kind, Number(row.balance_change), Number(row.balance_after)]);
}

describe('credit movements written together', () => {
  it('writes each movement as its own entry, in order, with the balance it left', async () => {
    const ws = await workspace();
    const moved = await db.transaction().execute((trx) =>
      moveCredits(trx, ws, [
        { kind: 'a', charge: 0n, reserveChange: 5n, reference: 'r1' },
        { kind: 'b', charge: 3n, reserveChange: -3n, reference: 'r2' },
        { kind: 'c', charge: -4n, reserveChange: 0n, reference: 'r3' },
      ]),
    );
    expect(moved).toBe(true);
    expect(await account(ws)).toEqual({ balance: BigInt(GRANT - 3 + 4), reserved: 2n });
    expect(await ledger(ws)).toEqual([
      [1, 'grant', GRANT, GRANT],
      [2, 'a', 0, GRANT],
      [3, 'b', -3, GRANT - 3],
      [4, 'c', 4, GRANT + 1],
    ]);
  });

  it('checks each movement against what the ones before it left, and changes nothing when one does not fit', async () => {
    const ws = await workspace();
    // 15 reserved leaves 5 available: the second movement's 6 does not fit, though it would alone.
    const refused = await db.transaction().execute((trx) =>
      moveCredits(trx, ws, [
        { kind: 'a', charge: 0n, reserveChange: 15n, reference: 'r1' },
        { kind: 'b', charge: 6n, reserveChange: 0n, reference: 'r2' },
      ]),
    );
    expect(refused).toBe(false);
    expect(await account(ws)).toEqual({ balance: BigInt(GRANT), reserved: 0n });
    expect(await ledger(ws)).toHaveLength(1);
    // Capturing a reserved fee takes nothing from the available credits: it fits at 0 available.
    const captured = await db.transaction().execute((trx) =>
      moveCredits(trx, ws, [
        { kind: 'a', charge: 0n, reserveChange: 20n, reference: 'r1' },
        { kind: 'b', charge: 1n, reserveChange: -1n, reference: 'r2' },
      ]),
    );
    expect(captured).toBe(true);
    expect(await account(ws)).toEqual({ balance: BigInt(GRANT - 1), reserved: 19n });
  });

  it('continues the ledger of a workspace that another transaction wrote to while this one waited for its account', async () => {
    const ws = await workspace();
    let releaseFirst!: () => void;
    const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
    let firstLocked!: () => void;
    const locked = new Promise<void>((resolve) => (firstLocked = resolve));
    const first = db.transaction().execute(async (trx) => {
      await moveCredits(trx, ws, [{ kind: 'first', charge: 1n, reserveChange: 0n, reference: 'x' }]);
      firstLocked();
      await firstHolds;
    });
    await locked;
    const second = db.transaction().execute((trx) =>
      moveCredits(trx, ws, [
        { kind: 'second', charge: 1n, reserveChange: 0n, reference: 'y' },
        { kind: 'third', charge: 1n, reserveChange: 0n, reference: 'z' },
      ]),
    );
    // The second waits on the account row; its ledger positions are read only once it holds it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    releaseFirst();
    await first;
    expect(await second).toBe(true);
    expect(await ledger(ws)).toEqual([
      [1, 'grant', GRANT, GRANT],
      [2, 'first', -1, GRANT - 1],
      [3, 'second', -1, GRANT - 2],
      [4, 'third', -1, GRANT - 3],
    ]);
  });
});

describe('receipts numbered together', () => {
  it("numbers a transaction's receipts after the workspace's last one, in the order given, each workspace on its own", async () => {
    const [{ ws: one, invoices: mine }, { ws: two, invoices: theirs }] = await Promise.all([
      shopWithInvoices(3),
      shopWithInvoices(1),
    ]);
    const at = new Date('2026-03-04T05:06:07.000Z');
    const log = { info() {}, warn() {} };
    await WorkspaceWrites.transaction(db, log, async (_trx, writes) => {
      writes.then(receiptIssues, one, { invoiceId: mine[0]!, at });
    });
    await WorkspaceWrites.transaction(db, log, async (_trx, writes) => {
      writes.then(receiptIssues, one, { invoiceId: mine[2]!, at });
      writes.then(receiptIssues, two, { invoiceId: theirs[0]!, at });
      writes.then(receiptIssues, one, { invoiceId: mine[1]!, at });
    });
    const { rows } = await sql<{ workspace_id: string; number: bigint; invoice_id: string; issued_at: Date }>`
      SELECT workspace_id, number, invoice_id, issued_at FROM receipts WHERE workspace_id IN (${one}, ${two})
       ORDER BY workspace_id = ${one} DESC, number`.execute(db);
    expect(rows.map((row) => [row.workspace_id, Number(row.number), row.invoice_id, row.issued_at])).toEqual([
      [one, 1, mine[0], at],
      [one, 2, mine[2], at],
      [one, 3, mine[1], at],
      [two, 1, theirs[0], at],
    ]);
  });
});
