import { parseTransaction, recoverTransactionAddress, type TransactionSerialized } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expect, it } from 'vitest';
import type { ChainPort } from '../../src/chain/chain-port.js';
import { setEthBalance } from '../../src/chain/local-chain.js';
import { createViemChain } from '../../src/chain/viem-chain.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import { decodePaymentHeader } from '../../src/modules/x402/x402.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import { signPaymentHeader } from '../support/x402.js';

// Two relayer accounts (RELAYER_PRIVATE_KEYS): the chain's own and a second one, both funded.
const chain = await createControlledChain({ confirmations: 1 });
const secondKey = generatePrivateKey();
const second = privateKeyToAccount(secondKey).address;
await setEthBalance(chain.rpcUrl, second, 10n ** 20n);
// The first account takes a while to sign (its node answers slowly), so settlements signed meanwhile find
// its nonce lock held and take the second account: the spread does not hang on scheduling.
const slowFirst: ChainPort = {
  ...chain.chain,
  async pendingNonce(network) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return chain.chain.pendingNonce(network);
  },
};
const signers: ChainPort[] = [slowFirst, createViemChain({ relayerPrivateKey: secondKey })];
// No worker: the test runs the settlement jobs itself, all at once.
const paying = await startPayingApp({ networks: chain.networks, chain: chain.chain, signers }, { worker: false });

/** Payments signed for `count` invoices of one shop, accepted and waiting for their settlement. */
async function acceptedPayments(count: number) {
  const shop = await openShop(paying);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const payments = [];
  // One after another: funding the payers sends from one minting account, whose nonces must not collide.
  for (let index = 0; index < count; index += 1) {
    const invoice = await shop.invoice('1');
    const payer = await chain.payer(1_000_000n);
    const submission = decodePaymentHeader(await signPaymentHeader(payer, invoice.payUrl), 2);
    if (typeof submission === 'string') throw new Error(submission);
    const intent = await paying.services.payments.submitAuthorization(
      workspaceId,
      invoiceOrder(invoice.id as InvoiceId),
      submission,
    );
    const settle = () => paying.services.payments.settle(workspaceId, intent.id).catch((error: unknown) => error);
    const state = () => paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address]);
    payments.push({ settle, state });
  }
  return payments;
}

it('settlements signed at once spread over the relayer accounts, each account with its own nonce sequence, and every payment is paid once', async () => {
  const payments = await acceptedPayments(6);
  await chain.setAutomine(false);
  const before = [await chain.transactionCount(chain.relayer), await chain.transactionCount(second)];

  await Promise.all(payments.map((payment) => payment.settle()));
  const sent = [
    (await chain.transactionCount(chain.relayer)) - before[0]!,
    (await chain.transactionCount(second)) - before[1]!,
  ];
  // The pending counts are the nonces each account handed out: no gap, or later ones could never be mined.
  expect(sent[0]! + sent[1]!).toBe(6);
  expect(sent[0]).toBeGreaterThan(0);
  expect(sent[1]).toBeGreaterThan(0);

  await chain.mine(1);
  await Promise.all(payments.map((payment) => payment.settle()));
  for (const payment of payments)
    expect(await payment.state()).toMatchObject({
      status: 'paid',
      intents: [{ status: 'succeeded' }],
      balances: [0n, 6_000_000n],
    });
  await chain.setAutomine(true);
});

it('an account that cannot pay gas is passed over, and its stuck settlement is replaced by the account that signed it', async () => {
  await setEthBalance(chain.rpcUrl, chain.relayer, 0n);
  // While settlements happen, the funds are read again at most a block later.
  paying.services.relayer.watch.noteSettlement(chain.network);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const [payment] = await acceptedPayments(1);
  await chain.setAutomine(false);

  await payment!.settle();
  const waiting = () =>
    paying.database.db
      .selectFrom('payment_intents')
      .select(['settlement_raw'])
      .where('status', '=', 'processing')
      .where('settlement_raw', 'is not', null)
      .execute();
  const [first, ...others] = await waiting();
  expect(others).toEqual([]);
  const signed = parseTransaction(first!.settlement_raw as `0x${string}`);
  const before = await chain.transactionCount(chain.relayer);

  // Stuck: the next block's base fee passes the settlement's fee cap, so it cannot be mined as signed.
  await chain.setNextBaseFee(signed.maxFeePerGas! * 2n);
  await chain.mine(1);
  // The latest block is read at most once a quarter block: the one just mined, once that passed.
  await new Promise((resolve) => setTimeout(resolve, 300));
  await payment!.settle();
  const [replaced] = await waiting();
  const replacement = parseTransaction(replaced!.settlement_raw as `0x${string}`);
  expect(replacement.nonce).toBe(signed.nonce);
  expect(replacement.maxFeePerGas!).toBeGreaterThan(signed.maxFeePerGas!);

  await chain.mine(1);
  await payment!.settle();
  expect(await payment!.state()).toMatchObject({ status: 'paid', intents: [{ status: 'succeeded' }] });
  // Signed by the second account, replaced by it, and the first sent nothing: it could not pay the gas.
  for (const raw of [first!.settlement_raw, replaced!.settlement_raw])
    expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerialized })).toBe(second);
  expect(await chain.transactionCount(chain.relayer)).toBe(before);
  await setEthBalance(chain.rpcUrl, chain.relayer, 10n ** 20n);
  await chain.setAutomine(true);
});
