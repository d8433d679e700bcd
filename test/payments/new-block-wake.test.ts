import { expect, it } from 'vitest';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { until } from '../support/service-fleet.js';
import { payV2 } from '../support/x402.js';

// The network claims a block every 30 s, so the settlement job's own retry delay is 30 s: only the
// new-block watcher can bring the payment in within the wait below.
const chain = await createControlledChain({ confirmations: 1, blockTimeSeconds: 30 });
const paying = await startPayingApp(chain);

it('a settlement waiting to be mined is recorded when its block arrives, not after its retry delay', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1');
  const payer = await chain.payer(1_000_000n);
  await chain.setAutomine(false);
  const paid = payV2(payer)(invoice.payUrl);
  const db = paying.database.db;
  // Sent, and given back to wait for a block.
  const waiting = await until('the settlement to wait for its block', async () => {
    const job = await db
      .selectFrom('jobs')
      .select(['run_at', 'wake_on'])
      .where('kind', '=', 'payments.settle')
      .where('wake_on', '=', 'new_block')
      .executeTakeFirst();
    return job;
  });
  expect(waiting.run_at.getTime()).toBeGreaterThan(Date.now() + 20_000);

  await chain.mine(1);
  await until(
    'the invoice to be paid',
    async () =>
      (await db.selectFrom('invoices').select('status').where('id', '=', invoice.id).executeTakeFirstOrThrow())
        .status === 'paid',
    15_000,
  );
  expect((await paid).status).toBe(200);
  await chain.setAutomine(true);
});
