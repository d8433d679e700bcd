import { expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { databaseBeforeMigration } from '../support/migration-fixture.js';

// A database deployed before 0013, without it.
const { pool, before } = await databaseBeforeMigration('0013');

const WALLET = `0x${'ab'.repeat(20)}`;

it('0013 numbers existing ledger entries per workspace, records their balances, moves grant reasons and marks first workspaces', async () => {
  await migrate(pool, before);
  // A wallet's first workspace (granted 100) and its second (granted 0), as the service wrote them.
  for (const [ws, grant, createdAt] of [
    ['ws_first', 100, '2026-01-01T00:00:00Z'],
    ['ws_second', 0, '2026-01-02T00:00:00Z'],
  ] as const) {
    await pool.query('INSERT INTO workspaces (id, name, wallet_address, created_at) VALUES ($1, $1, $2, $3)', [
      ws,
      WALLET,
      createdAt,
    ]);
    await pool.query('INSERT INTO credit_accounts (workspace_id, balance) VALUES ($1, $2)', [ws, grant]);
    await pool.query(
      "INSERT INTO credit_ledger (workspace_id, kind, balance_change, reference) VALUES ($1, 'grant', $2, 'new workspace')",
      [ws, grant],
    );
  }
  await pool.query(
    `SELECT * FROM create_invoice('ws_first', NULL, '\\x00', interval '1 day', 'inv_one', 1000000, NULL, 86400, now(), NULL, NULL, NULL, '{}', NULL, 2, 1, 'api',
                                '{"invoice": {"id": "inv_one", "number": "", "payTo": ""}}')`,
  );

  expect(await migrate(pool)).toContain('0013_credit_purchases');
  const ledger = async () =>
    (
      await pool.query(
        'SELECT workspace_id, seq::int, kind, balance_change::int, balance_after::int, reference, reason FROM credit_ledger ORDER BY id',
      )
    ).rows;
  expect(await ledger()).toEqual([
    {
      workspace_id: 'ws_first',
      seq: 1,
      kind: 'grant',
      balance_change: 100,
      balance_after: 100,
      reference: null,
      reason: 'new workspace',
    },
    {
      workspace_id: 'ws_second',
      seq: 1,
      kind: 'grant',
      balance_change: 0,
      balance_after: 0,
      reference: null,
      reason: 'new workspace',
    },
    {
      workspace_id: 'ws_first',
      seq: 2,
      kind: 'invoice.created',
      balance_change: -2,
      balance_after: 98,
      reference: 'inv_one',
      reason: null,
    },
  ]);
  expect(
    (await pool.query('SELECT workspace_id, first_of_wallet FROM credit_accounts ORDER BY workspace_id')).rows,
  ).toEqual([
    { workspace_id: 'ws_first', first_of_wallet: true },
    { workspace_id: 'ws_second', first_of_wallet: false },
  ]);

  // From now on every writer gets its position and balance from the database, create_invoice too.
  await pool.query(
    `SELECT * FROM create_invoice('ws_first', NULL, '\\x00', interval '1 day', 'inv_two', 1000000, NULL, 3600, now(), NULL, NULL, NULL, '{}', NULL, 1, 1, 'api',
                                '{"invoice": {"id": "inv_two", "number": "", "payTo": ""}}')`,
  );
  expect((await ledger()).at(-1)).toMatchObject({
    workspace_id: 'ws_first',
    seq: 3,
    balance_after: 97,
    reference: 'inv_two',
  });
  // An entry for a workspace without a credit account has no balance to record: refused.
  await expect(
    pool.query("INSERT INTO credit_ledger (workspace_id, kind) VALUES ('ws_nowhere', 'grant')"),
  ).rejects.toThrow(/no credit account/);
});
