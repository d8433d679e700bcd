import { sql, type KyselyPlugin } from 'kysely';
import { expect, it } from 'vitest';
import { AppError } from '../../src/shared/errors.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import { CreateBatcher } from '../../src/modules/invoices/invoice.batcher.js';
import {
  createInvoices,
  createItem,
  toInvoice,
  type CreateInvoiceParams,
  type CreateItem,
  type CreateOutcome,
} from '../../src/modules/invoices/invoice.repo.js';
import { createTestApp, merchant } from '../support/app.js';

// The database's side of a group commit, called directly so that the group is exactly the one written here.
const { app, database } = await createTestApp({ NEW_WORKSPACE_CREDITS: '10' });
const shopA = (await merchant(app, ['invoices:create'])).workspaceId as WorkspaceId;
const shopB = (await merchant(app, ['invoices:create'])).workspaceId as WorkspaceId;

let counter = 0;
function item(workspaceId: WorkspaceId, overrides: Partial<CreateInvoiceParams> = {}): CreateItem {
  const id = `inv_group${String(++counter).padStart(4, '0')}` as InvoiceId;
  return createItem(workspaceId, {
    idempotencyKey: `key-${counter}`,
    requestHash: Buffer.from(`request-${counter}`),
    idempotencyTtlSeconds: 86_400,
    id,
    amount: 1_000_000n,
    network: null,
    expiresIn: 3600,
    now: new Date('2026-11-25T10:00:00.000Z'),
    externalId: null,
    description: null,
    successUrl: null,
    cancelUrl: null,
    urlOrigins: [],
    payTo: null,
    cost: 1n,
    fee: 1n,
    source: 'api',
    createdEvent: { invoice: { id, status: 'open' } } as unknown as CreateInvoiceParams['createdEvent'],
    ...overrides,
  });
}

const describe = (outcome: CreateOutcome | AppError | undefined) =>
  outcome instanceof AppError
    ? outcome.code
    : outcome?.kind === 'idempotency_key_reused'
      ? outcome.kind
      : `${outcome?.kind} ${outcome?.invoice.id}`;

const numberOf = (outcome: CreateOutcome | AppError | undefined) =>
  outcome && !(outcome instanceof AppError) && outcome.kind !== 'idempotency_key_reused'
    ? outcome.invoice.number
    : null;

async function ledger(workspaceId: string) {
  const { rows } = await sql<{ seq: string; change: string; after: string; running: string }>`
    SELECT seq::text, balance_change::text AS change, balance_after::text AS after,
           (sum(balance_change) OVER (ORDER BY seq))::text AS running
      FROM credit_ledger WHERE workspace_id = ${workspaceId} ORDER BY seq`.execute(database.db);
  return rows;
}

it('decides every item of a group in order, then writes numbers, credits, ledger, events and keys once', async () => {
  const a1 = item(shopA);
  const a2 = item(shopA, { urlOrigins: ['https://not-allowed.example'] });
  const a3 = item(shopA, { fee: 7n }); // needs 8 of the 8 left after a1
  const a4 = item(shopA, { fee: 0n }); // nothing left
  const a5 = item(shopA, { payTo: '0x000000000000000000000000000000000000dead' });
  const b1 = item(shopB);
  // A missing workspace: its items are refused as not found, and nothing is written for them.
  const lost = item('ws_missing' as WorkspaceId);
  // Workspaces interleaved: the function groups them itself.
  const outcomes = await createInvoices(database.db, [b1, a1, lost, a2, a3, a4, a5]);
  expect(outcomes.map(describe)).toEqual([
    `created ${b1.params.id}`,
    `created ${a1.params.id}`,
    'not_found',
    'return_origin_not_allowed',
    `created ${a3.params.id}`,
    'insufficient_credits',
    'pay_to_mismatch',
  ]);
  expect([outcomes[0], outcomes[1], outcomes[4]].map(numberOf)).toEqual([1n, 1n, 2n]);
  const { rows: orphans } = await sql<{ count: number }>`
    SELECT (SELECT count(*) FROM idempotency_keys WHERE workspace_id = 'ws_missing')
         + (SELECT count(*) FROM invoices WHERE workspace_id = 'ws_missing')
         + (SELECT count(*) FROM events WHERE workspace_id = 'ws_missing')
         + (SELECT count(*) FROM credit_ledger WHERE workspace_id = 'ws_missing') AS count`.execute(database.db);
  expect(Number(orphans[0]!.count)).toBe(0);

  const { rows: accounts } = await sql<{
    workspace_id: string;
    balance: string;
    reserved: string;
    invoice_seq: string;
  }>`
    SELECT a.workspace_id, a.balance::text, a.reserved::text, w.invoice_seq::text
      FROM credit_accounts a JOIN workspaces w ON w.id = a.workspace_id
     WHERE a.workspace_id IN (${shopA}, ${shopB}) ORDER BY a.workspace_id = ${shopB}`.execute(database.db);
  expect(accounts.map(({ balance, reserved, invoice_seq }) => [balance, reserved, invoice_seq])).toEqual([
    ['8', '8', '2'],
    ['9', '1', '1'],
  ]);
  for (const shop of [shopA, shopB]) {
    const entries = await ledger(shop);
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, i) => String(i + 1)));
    expect(entries.map((entry) => entry.after)).toEqual(entries.map((entry) => entry.running));
  }

  const { rows: events } = await sql<{ id: string; invoice_id: string; number: string; pay_to: string }>`
    SELECT e.id::text, e.invoice_id, e.data->'invoice'->>'number' AS number, e.data->'invoice'->>'payTo' AS pay_to
      FROM events e WHERE e.workspace_id = ${shopA} AND e.type = 'invoice.created' ORDER BY e.id`.execute(database.db);
  const { rows: wallet } = await sql<{ wallet_address: string; event_seq: string }>`
    SELECT wallet_address, event_seq::text FROM workspaces WHERE id = ${shopA}`.execute(database.db);
  expect(events.map(({ invoice_id, number, pay_to }) => [invoice_id, number, pay_to])).toEqual([
    [a1.params.id, 'INV-000001', wallet[0]!.wallet_address],
    [a3.params.id, 'INV-000002', wallet[0]!.wallet_address],
  ]);
  expect(Number(events[1]!.id)).toBe(Number(events[0]!.id) + 1);
  expect(wallet[0]!.event_seq).toBe(events[1]!.id);
  // Written by append_event, as every event is: data is stored as jsonb renders it.
  const { rows: asAppended } = await sql<{ same: boolean }>`
    SELECT e.data::text = e.data::jsonb::text AS same
      FROM events e WHERE e.workspace_id = ${shopA} AND e.type = 'invoice.created'`.execute(database.db);
  expect(asAppended.map((row) => row.same)).toEqual([true, true]);

  // A refused item's key is free again; a created item's key replays what it created.
  const retried = item(shopA, { idempotencyKey: a2.params.idempotencyKey, cost: 0n, fee: 0n });
  const replay = item(shopB, { idempotencyKey: b1.params.idempotencyKey, requestHash: b1.params.requestHash });
  const reuse = item(shopA, { idempotencyKey: a1.params.idempotencyKey });
  const again = await createInvoices(database.db, [retried, replay, reuse]);
  expect(again.map(describe)).toEqual([
    `created ${retried.params.id}`,
    `replayed ${b1.params.id}`,
    'idempotency_key_reused',
  ]);
  expect(numberOf(again[0])).toBe(3n);
});

it('sends the second of two items with one key after their group, so that it replays the first', async () => {
  let statements = 0;
  const counting: KyselyPlugin = {
    transformQuery: (args) => (statements++, args.node),
    transformResult: async (args) => args.result,
  };
  const batcher = new CreateBatcher(database.db.withPlugin(counting));
  const lone = item(shopB);
  const first = item(shopB);
  const second = item(shopB, { idempotencyKey: first.params.idempotencyKey, requestHash: first.params.requestHash });
  const other = item(shopB);
  // The lone item goes at once; the three sent while it runs form the next group.
  const outcomes = await Promise.all(
    [lone, first, second, other].map(({ workspaceId, params }) => batcher.create(workspaceId, params)),
  );
  expect(outcomes.map(describe)).toEqual([
    `created ${lone.params.id}`,
    `created ${first.params.id}`,
    `replayed ${first.params.id}`,
    `created ${other.params.id}`,
  ]);
  // The lone item, the group of two, the repeat: not a group that fails and goes again one by one.
  expect(statements).toBe(3);
  const { rows } = await sql<{ count: number }>`
    SELECT count(*)::int AS count FROM invoices WHERE workspace_id = ${shopB} AND id = ${second.params.id}`.execute(
    database.db,
  );
  expect(rows[0]!.count).toBe(0);
});

it('refuses a group holding one key twice as a whole, writing nothing', async () => {
  const first = item(shopA);
  const second = item(shopA, { idempotencyKey: first.params.idempotencyKey, requestHash: first.params.requestHash });
  await expect(createInvoices(database.db, [first, second])).rejects.toThrow(/one idempotency key twice/);
  const { rows } = await sql<{ count: number }>`
    SELECT count(*)::int AS count FROM idempotency_keys WHERE workspace_id = ${shopA} AND key = ${first.params.idempotencyKey}`.execute(
    database.db,
  );
  expect(rows[0]!.count).toBe(0);
});

async function storedRow(workspaceId: string, id: string) {
  const { rows } = await sql<{ row: Record<string, unknown> }>`
    SELECT to_jsonb(i) AS row FROM invoices i WHERE workspace_id = ${workspaceId} AND id = ${id}`.execute(database.db);
  return rows[0]!.row;
}

it('stores with each new key the invoice row as created, which a retry replays, in a group and alone', async () => {
  const made = item(shopB, { externalId: 'order-7', successUrl: null, fee: 0n });
  const [outcome] = await createInvoices(database.db, [made]);
  expect(describe(outcome)).toBe(`created ${made.params.id}`);
  const row = await storedRow(shopB, made.params.id);
  const { rows } = await sql<{ response: Record<string, unknown> }>`
    SELECT response FROM idempotency_keys
     WHERE workspace_id = ${shopB} AND scope = 'invoices.create' AND key = ${made.params.idempotencyKey}`.execute(
    database.db,
  );
  expect(rows[0]!.response).toEqual(row);
  // What the service answered is what the row says.
  const created = outcome as Exclude<CreateOutcome, { kind: 'idempotency_key_reused' }>;
  expect(created.invoice).toEqual({ ...toInvoice(row), automation: null });

  const retry = createItem(shopB, { ...made.params, id: 'inv_notmade' as InvoiceId });
  const [grouped] = await createInvoices(database.db, [retry, item(shopB, { cost: 0n, fee: 0n })]);
  const [alone] = await createInvoices(database.db, [retry]);
  for (const replayed of [grouped, alone]) {
    expect(describe(replayed)).toBe(`replayed ${made.params.id}`);
    expect((replayed as Exclude<CreateOutcome, { kind: 'idempotency_key_reused' }>).invoice).toEqual(toInvoice(row));
  }
});

it('decides a group again without the items its keys replay, and each new key keeps the row as inserted', async () => {
  const made = item(shopB, { cost: 0n, fee: 0n });
  await createInvoices(database.db, [made]);
  // The replay comes first: decided before the keys were read, it held the number the next item takes.
  const retry = createItem(shopB, { ...made.params, id: 'inv_notmade2' as InvoiceId });
  const next = item(shopB, { cost: 0n, fee: 0n });
  const outcomes = await createInvoices(database.db, [retry, next]);
  expect(outcomes.map(describe)).toEqual([`replayed ${made.params.id}`, `created ${next.params.id}`]);
  // No gap: the number after the replayed invoice's.
  expect(numberOf(outcomes[1])).toBe(numberOf(outcomes[0])! + 1n);
  const { rows } = await sql<{ response: Record<string, unknown> }>`
    SELECT response FROM idempotency_keys
     WHERE workspace_id = ${shopB} AND scope = 'invoices.create' AND key = ${next.params.idempotencyKey}`.execute(
    database.db,
  );
  expect(rows[0]!.response).toEqual(await storedRow(shopB, next.params.id));
});
