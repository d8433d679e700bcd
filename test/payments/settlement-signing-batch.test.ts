import { sql } from 'kysely';
import { parseTransaction, type TransactionSerialized } from 'viem';
import { expect, it } from 'vitest';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import type { PaymentIntentId } from '../../src/modules/payment-engine/payment-intent.js';
import { decodePaymentHeader } from '../../src/modules/x402/x402.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import { signPaymentHeader } from '../support/x402.js';

// One relayer account. No worker: the test runs the settlement jobs itself, all at once.
const chain = await createControlledChain({ confirmations: 1 });
const paying = await startPayingApp({ networks: chain.networks, chain: chain.chain }, { worker: false });

it('settlements that come while one is signed are signed together: consecutive nonces, one transaction, each paid once', async () => {
  const shop = await openShop(paying);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const payments: { intentId: PaymentIntentId; invoiceId: string; payer: `0x${string}` }[] = [];
  // One after another: funding the payers sends from one minting account, whose nonces must not collide.
  for (let index = 0; index < 6; index += 1) {
    const invoice = await shop.invoice('1');
    const payer = await chain.payer(1_000_000n);
    const submission = decodePaymentHeader(await signPaymentHeader(payer, invoice.payUrl), 2);
    if (typeof submission === 'string') throw new Error(submission);
    const intent = await paying.services.payments.submitAuthorization(
      workspaceId,
      invoiceOrder(invoice.id as InvoiceId),
      submission,
    );
    payments.push({ intentId: intent.id, invoiceId: invoice.id, payer: payer.address });
  }
  const settleAll = () =>
    Promise.all(
      payments.map((payment) => paying.services.payments.settle(workspaceId, payment.intentId).catch(() => {})),
    );
  await chain.setAutomine(false);
  const before = await chain.transactionCount(chain.relayer);

  await settleAll();
  // Each intent keeps the bytes it was signed with; the transaction that kept them is its row's xmin.
  const { rows } = await sql<{ settlement_raw: string; kept_by: string }>`
    SELECT settlement_raw, xmin::text AS kept_by FROM payment_intents
     WHERE id = ANY(${payments.map((payment) => payment.intentId)})`.execute(paying.database.db);
  const nonces = rows
    .map((row) => parseTransaction(row.settlement_raw as TransactionSerialized).nonce!)
    .sort((a, b) => a - b);
  expect(nonces).toEqual([0, 1, 2, 3, 4, 5].map((step) => before + step));
  expect(await chain.transactionCount(chain.relayer)).toBe(before + 6);
  // The first settlement is signed at once, alone; the five that came meanwhile together, in one transaction.
  expect(new Set(rows.map((row) => row.kept_by)).size).toBe(2);

  await chain.mine(1);
  await settleAll();
  for (const payment of payments)
    expect(
      await paymentState(paying, chain.rpcUrl, payment.invoiceId, [payment.payer, shop.wallet.address]),
    ).toMatchObject({
      status: 'paid',
      intents: [{ status: 'succeeded' }],
      balances: [0n, 6_000_000n],
    });
  await chain.setAutomine(true);
});
