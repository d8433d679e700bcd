import { sql } from 'kysely';
import { parseTransaction } from 'viem';
import { expect, it } from 'vitest';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp, submittedX402Payments } from '../support/paying-app.js';
import { startRpcProxy } from '../support/rpc-proxy.js';

// What settlements ask of the node, counted at a JSON-RPC proxy: settlements made together share their
// fee estimate, the relayer's pending count and the read of the block that holds them, and one waiting in the mempool is not sent
// again while the node knows it. No worker: the test runs the settlement jobs, as the worker would.
const chain = await createControlledChain({ confirmations: 1 });
const proxy = await startRpcProxy(chain.rpcUrl);
const network = { ...chain.network, rpcUrls: [proxy.url] };
const paying = await startPayingApp({ networks: [network], chain: chain.chain }, { worker: false });

it('settlements made together read fees, the pending count and their block once, and one waiting is sent again only when the node forgot it', async () => {
  const shop = await openShop(paying);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const payments = await submittedX402Payments(paying, shop, () => chain.payer(5_000_000n), ['1', '2', '3']);
  const settleAll = () =>
    Promise.all(payments.map(({ intent }) => paying.services.payments.settle(workspaceId, intent.id).catch(() => {})));
  const settlements = async () =>
    (
      await paying.database.db
        .selectFrom('payment_intents')
        .select(['tx_hash', 'settlement_raw'])
        .where(
          'id',
          'in',
          payments.map(({ intent }) => intent.id),
        )
        .execute()
    ).map((row) => ({
      hash: row.tx_hash as `0x${string}`,
      nonce: parseTransaction(row.settlement_raw as `0x${string}`).nonce!,
    }));

  await chain.setAutomine(false);
  proxy.reset();
  await settleAll();
  expect(proxy.calls().eth_sendRawTransaction).toBe(3);
  // Just sent, a settlement is not looked for before a block comes.
  expect(proxy.calls().eth_getTransactionReceipt).toBeUndefined();
  expect(proxy.calls().eth_getTransactionByHash).toBeUndefined();
  // One fee estimate for all three, or none: the one read for the checks before them may still be fresh.
  expect(proxy.calls().eth_maxPriorityFeePerGas ?? 0).toBeLessThanOrEqual(1);
  // Priced, not simulated a second time (the checks at submission simulated each): the gas estimate runs it.
  expect(proxy.calls().eth_call).toBeUndefined();
  expect(proxy.calls().eth_estimateGas).toBe(3);
  // The relayer's pending count once per transaction that signed (the row's xmin), not once per settlement.
  const { rows } = await sql<{ kept_by: string }>`
    SELECT DISTINCT xmin::text AS kept_by FROM payment_intents
     WHERE id = ANY(${payments.map(({ intent }) => intent.id)})`.execute(paying.database.db);
  expect(rows.length).toBeLessThan(3);
  expect(proxy.calls().eth_getTransactionCount).toBe(rows.length);

  // Waiting for a block: looked at, not sent again.
  proxy.reset();
  await settleAll();
  await settleAll();
  expect(proxy.calls().eth_sendRawTransaction).toBeUndefined();

  // A node that forgot one (evicted it) gets it again, the same bytes. The one of the highest nonce: anvil
  // forgets the later transactions of the sender with one.
  const forgotten = (await settlements()).sort((a, b) => b.nonce - a.nonce)[0]!.hash;
  await chain.drop(forgotten);
  proxy.reset();
  await settleAll();
  expect(proxy.calls().eth_sendRawTransaction).toBe(1);
  expect(await chain.knows(forgotten)).toBe(true);

  await chain.mine(1);
  proxy.reset();
  await settleAll();
  // The block's receipts once for the three, its time from the read of the head.
  expect(proxy.calls()).toMatchObject({ eth_getBlockReceipts: 1 });
  expect(proxy.calls().eth_getTransactionReceipt).toBeUndefined();
  expect(proxy.calls().eth_getBlockByHash).toBeUndefined();
  for (const { invoice } of payments)
    expect(await paymentState(paying, chain.rpcUrl, invoice.id, [])).toMatchObject({
      status: 'paid',
      intents: [{ status: 'succeeded' }],
    });
});
