import { expect, it } from 'vitest';
import { usdcBalance } from '../../src/chain/local-chain.js';
import { merchant } from '../support/app.js';
import { serviceFleet, until } from '../support/service-fleet.js';
import { payV2 } from '../support/x402.js';

const { chain, database, admin, start, kill9 } = await serviceFleet({ confirmations: 3 });

const intentsOf = (invoiceId: string) =>
  database.db
    .selectFrom('payment_intents')
    .select(['id', 'status', 'tx_hash', 'settlement_raw'])
    .where('invoice_id', '=', invoiceId)
    .execute();
const statusOf = async (invoiceId: string) =>
  (await database.db.selectFrom('invoices').select('status').where('id', '=', invoiceId).executeTakeFirstOrThrow())
    .status;

/** Waits until the intent's settlement is stored and the node has it: broadcast, not yet confirmed. */
async function broadcastSettlement(invoiceId: string): Promise<`0x${string}`> {
  return until(`the settlement of ${invoiceId} to be broadcast`, async () => {
    const [intent] = await intentsOf(invoiceId);
    const hash = intent?.tx_hash as `0x${string}` | undefined;
    return hash && intent?.settlement_raw && (await chain.knows(hash)) ? hash : undefined;
  });
}

it(
  'kill -9 between broadcast and confirmation: after a restart each invoice is paid exactly once',
  { timeout: 60_000 },
  async () => {
    const shop = await merchant(admin, ['invoices:create']);
    const create = async (key: string) => {
      const response = await admin.inject({
        method: 'POST',
        url: `/w/${shop.workspaceId}/v1/invoices`,
        headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': key },
        payload: { amount: '4' },
      });
      return response.json<{ id: string }>().id;
    };
    const [mined, pending] = [await create('crash-mined'), await create('crash-pending')];
    const [minedPayer, pendingPayer] = [await chain.payer(10_000_000n), await chain.payer(10_000_000n)];
    // From here on only the test makes blocks: a settlement waits until the test mines.
    await chain.setAutomine(false);
    const first = await start();
    const payUrl = (invoiceId: string) => `${first.baseUrl}/w/${shop.workspaceId}/x402/${invoiceId}`;

    // One settlement mined with 1 of 3 confirmations, one still in the mempool, when the process dies.
    const payments = [payV2(minedPayer)(payUrl(mined)).catch((error: unknown) => error)];
    const minedHash = await broadcastSettlement(mined);
    await chain.mine(1);
    payments.push(payV2(pendingPayer)(payUrl(pending)).catch((error: unknown) => error));
    const pendingHash = await broadcastSettlement(pending);
    await kill9(first);

    expect(await Promise.all([statusOf(mined), statusOf(pending)])).toEqual(['processing', 'processing']);
    expect(await usdcBalance(chain.rpcUrl, minedPayer.address)).toBe(6_000_000n);
    expect(await usdcBalance(chain.rpcUrl, pendingPayer.address)).toBe(10_000_000n);
    // The clients lose their connection; they are told nothing false.
    for (const outcome of await Promise.all(payments)) expect(outcome).toBeInstanceOf(Error);
    // The node forgets the pending settlement (a node restart, a mempool eviction): only the stored bytes remain.
    await chain.drop(pendingHash);
    expect(await chain.knows(pendingHash)).toBe(false);

    await start();
    chain.startMining(200);
    await until(
      'both invoices to be paid',
      async () => (await statusOf(mined)) === 'paid' && (await statusOf(pending)) === 'paid',
    );
    await chain.stopMining();

    for (const [invoiceId, hash] of [
      [mined, minedHash],
      [pending, pendingHash],
    ] as const) {
      expect(await intentsOf(invoiceId)).toMatchObject([{ status: 'succeeded', tx_hash: hash }]);
    }
    expect(await usdcBalance(chain.rpcUrl, minedPayer.address)).toBe(6_000_000n);
    expect(await usdcBalance(chain.rpcUrl, pendingPayer.address)).toBe(6_000_000n);
    expect(await usdcBalance(chain.rpcUrl, shop.wallet.address)).toBe(8_000_000n);
    // The restarted service resent the stored transactions; it never signed a third one.
    expect(await chain.transactionCount(chain.relayer)).toBe(2);
    const claims = await database.db.selectFrom('payment_claims').select('tx_hash').execute();
    expect(claims.map((claim) => claim.tx_hash).sort()).toEqual(
      [minedHash, pendingHash].map((hash) => hash.toLowerCase()).sort(),
    );
  },
);
