import { parseTransaction } from 'viem';
import { expect, it } from 'vitest';
import type { ChainPort } from '../../src/chain/chain-port.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp, submittedX402Payments } from '../support/paying-app.js';

const chain = await createControlledChain({ confirmations: 1 });
/** Set to make the next broadcast fail as a process killed between storing its bytes and sending them. */
let dieBeforeSending = false;
const port: ChainPort = {
  ...chain.chain,
  async broadcast(network, raw) {
    if (dieBeforeSending) {
      dieBeforeSending = false;
      throw new Error('the process died before sending');
    }
    return chain.chain.broadcast(network, raw);
  },
};
// No worker: the test runs the settlement jobs itself, as a restarted worker would.
const paying = await startPayingApp({ networks: chain.networks, chain: port }, { worker: false });

it('a settlement stored but never sent holds the next one back only until its retry sends the same bytes', async () => {
  const shop = await openShop(paying);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const payments = await submittedX402Payments(paying, shop, () => chain.payer(5_000_000n), ['1', '2']);
  const [first, second] = payments as [(typeof payments)[number], (typeof payments)[number]];
  const settle = (intentId: typeof first.intent.id) =>
    paying.services.payments.settle(workspaceId, intentId).catch((error: unknown) => error);
  const stored = async (intentId: typeof first.intent.id) => {
    const row = await paying.database.db
      .selectFrom('payment_intents')
      .select(['settlement_raw', 'tx_hash'])
      .where('id', '=', intentId)
      .executeTakeFirstOrThrow();
    return { raw: row.settlement_raw as `0x${string}`, hash: row.tx_hash as `0x${string}` };
  };

  dieBeforeSending = true;
  expect(await settle(first.intent.id)).toBeInstanceOf(Error);
  const lost = await stored(first.intent.id);
  expect(await chain.knows(lost.hash)).toBe(false);

  // The next settlement takes the next nonce (the stored one is not free) and waits behind the gap.
  await settle(second.intent.id);
  const waiting = await stored(second.intent.id);
  expect(parseTransaction(waiting.raw).nonce).toBe(parseTransaction(lost.raw).nonce! + 1);
  expect(await chain.knows(waiting.hash)).toBe(true);
  expect((await paymentState(paying, chain.rpcUrl, second.invoice.id, [])).status).toBe('processing');

  // The retry of the first job sends the very bytes it stored; both then mine.
  await settle(first.intent.id);
  expect(await stored(first.intent.id)).toEqual(lost);
  await chain.mine(1);
  await settle(first.intent.id);
  await settle(second.intent.id);
  for (const { invoice } of payments)
    expect(await paymentState(paying, chain.rpcUrl, invoice.id, [])).toMatchObject({
      status: 'paid',
      intents: [{ status: 'succeeded' }],
    });
  expect(await chain.transactionCount(chain.relayer)).toBe(2);
});
