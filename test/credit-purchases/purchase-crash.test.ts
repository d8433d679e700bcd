import { expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { TEST_OPERATOR_WALLET, merchant } from '../support/app.js';
import { serviceFleet, until } from '../support/service-fleet.js';
import { payV2 } from '../support/x402.js';

const { chain, database, admin, start, kill9 } = await serviceFleet({
  confirmations: 3,
  env: { OPERATOR_WALLET: TEST_OPERATOR_WALLET },
});

const intentsOf = (purchaseId: string) =>
  database.db
    .selectFrom('payment_intents')
    .select(['status', 'tx_hash', 'settlement_raw'])
    .where('credit_purchase_id', '=', purchaseId)
    .execute();
const purchaseRow = (purchaseId: string) =>
  database.db.selectFrom('credit_purchases').selectAll().where('id', '=', purchaseId).executeTakeFirstOrThrow();

it(
  'kill -9 between broadcast and confirmation: after a restart the purchase is paid and credited exactly once',
  { timeout: 60_000 },
  async () => {
    const shop = await merchant(admin, ['billing:read', 'billing:write']);
    const auth = { authorization: `Bearer ${shop.apiKey}` };
    const bought = await admin.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/credit-purchases`,
      headers: { ...auth, 'idempotency-key': 'crash-purchase' },
      payload: { packageId: 'starter' },
    });
    const purchase = bought.json<{ id: string; url: string }>();
    const payer = await chain.payer(10_000_000n);
    // From here on only the test makes blocks: the settlement waits until the test mines.
    await chain.setAutomine(false);
    const first = await start();

    const payment = payV2(payer)(`${first.baseUrl}/w/${shop.workspaceId}/x402/credit-purchases/${purchase.id}`).catch(
      (error: unknown) => error,
    );
    const hash = await until('the settlement to be broadcast', async () => {
      const [intent] = await intentsOf(purchase.id);
      const sent = intent?.tx_hash as `0x${string}` | undefined;
      return sent && intent?.settlement_raw && (await chain.knows(sent)) ? sent : undefined;
    });
    await chain.mine(1);
    await kill9(first);
    expect(await payment).toBeInstanceOf(Error);
    expect((await purchaseRow(purchase.id)).status).toBe('processing');
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(0n);

    await start();
    chain.startMining(200);
    await until('the purchase to be paid', async () => (await purchaseRow(purchase.id)).status === 'paid');
    await chain.stopMining();

    expect(await intentsOf(purchase.id)).toMatchObject([{ status: 'succeeded', tx_hash: hash }]);
    expect(await usdcBalance(chain.rpcUrl, TEST_OPERATOR_WALLET)).toBe(10_000_000n);
    expect(await chain.transactionCount(chain.relayer)).toBe(1);
    const billing = await admin.inject({ method: 'GET', url: `/w/${shop.workspaceId}/v1/billing`, headers: auth });
    expect(billing.json()).toMatchObject({ creditBalance: 100 + 100 });
    const purchases = await database.db
      .selectFrom('credit_ledger')
      .select(['balance_change', 'reference'])
      .where('workspace_id', '=', shop.workspaceId)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases).toEqual([{ balance_change: 100n, reference: purchase.id }]);
  },
);
