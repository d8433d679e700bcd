import { sql } from 'kysely';
import { parseTransaction, type TransactionSerialized } from 'viem';
import { expect, it } from 'vitest';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp, submittedX402Payments } from '../support/paying-app.js';

// One relayer account. No worker: the test runs the settlement jobs itself, all at once.
const chain = await createControlledChain({ confirmations: 1 });
const paying = await startPayingApp({ networks: chain.networks, chain: chain.chain }, { worker: false });

it('settlements that come while one is signed are signed together: consecutive nonces, one transaction, each paid once', async () => {
  const shop = await openShop(paying);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const amounts = Array.from({ length: 6 }, () => '1');
  const payments = await submittedX402Payments(paying, shop, () => chain.payer(1_000_000n), amounts);
  const settleAll = () =>
    Promise.all(
      payments.map((payment) => paying.services.payments.settle(workspaceId, payment.intent.id).catch(() => {})),
    );
  await chain.setAutomine(false);
  const before = await chain.transactionCount(chain.relayer);

  await settleAll();
  // Each intent keeps the bytes it was signed with; the transaction that kept them is its row's xmin.
  const { rows } = await sql<{ settlement_raw: string; kept_by: string }>`
    SELECT settlement_raw, xmin::text AS kept_by FROM payment_intents
     WHERE id = ANY(${payments.map((payment) => payment.intent.id)})`.execute(paying.database.db);
  const nonces = rows
    .map((row) => parseTransaction(row.settlement_raw as TransactionSerialized).nonce!)
    .sort((a, b) => a - b);
  expect(nonces).toEqual([0, 1, 2, 3, 4, 5].map((step) => before + step));
  expect(await chain.transactionCount(chain.relayer)).toBe(before + 6);
  // The first settlement is signed at once, alone; those that came meanwhile together, in one
  // transaction. How many came meanwhile depends on when each one's price was in (a loaded machine
  // can spread them over more than one group), but never all one at a time.
  const sizes = new Map<string, number>();
  for (const row of rows) sizes.set(row.kept_by, (sizes.get(row.kept_by) ?? 0) + 1);
  const groups = [...sizes.values()];
  expect(groups.length).toBeGreaterThanOrEqual(2);
  expect(Math.max(...groups)).toBeGreaterThan(1);

  await chain.mine(1);
  await settleAll();
  for (const payment of payments)
    expect(await paymentState(paying, chain.rpcUrl, payment.invoice.id, [shop.wallet.address])).toMatchObject({
      status: 'paid',
      intents: [{ status: 'succeeded' }],
      balances: [6_000_000n],
    });
  await chain.setAutomine(true);
});
