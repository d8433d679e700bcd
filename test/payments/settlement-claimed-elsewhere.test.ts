import { expect, it } from 'vitest';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import type { PaymentIntentId } from '../../src/modules/payment-engine/payment-intent.js';
import { decodePaymentHeader } from '../../src/modules/x402/x402.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import { signPaymentHeader } from '../support/x402.js';

const chain = await createControlledChain({ confirmations: 3 });
// No worker: the test runs the jobs, in the order an attacker hopes for.
const paying = await startPayingApp(chain, { worker: false });

/**
 * The relayer's settlement transaction is public as soon as it is mined: a Transfer of exactly the amount
 * to the shop. While it gathers its confirmations, anybody can submit its hash as the "plain transfer"
 * payment of another invoice of the same shop and amount. Whichever job claims the transfer first wins.
 */
it('a relayer settlement cannot pay another invoice submitted as a plain transfer; it pays its own', async () => {
  const shop = await openShop(paying);
  const victims = await shop.invoice('1');
  const attackers = await shop.invoice('1');
  const payer = await chain.payer(5_000_000n);
  const submission = decodePaymentHeader(await signPaymentHeader(payer, victims.payUrl), 2);
  if (typeof submission === 'string') throw new Error(submission);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const settlement = await paying.services.payments.submitAuthorization(
    workspaceId,
    invoiceOrder(victims.id as InvoiceId),
    submission,
  );
  await paying.services.payments.settle(workspaceId, settlement.id).catch(() => {}); // sent (automine: mined at once); 3 confirmations needed
  const { tx_hash: txHash } = await paying.database.db
    .selectFrom('payment_intents')
    .select('tx_hash')
    .where('id', '=', settlement.id)
    .executeTakeFirstOrThrow();

  const claim = await paying.app.inject({
    method: 'POST',
    url: `/w/${shop.workspaceId}/i/${attackers.id}/transactions`,
    payload: { network: chain.network.name, txHash },
  });
  await chain.mine(2);
  if (claim.statusCode === 202) {
    // The attacker's verification happens to run first.
    await paying.services.payments
      .verifyTransaction(workspaceId, claim.json<{ paymentIntentId: string }>().paymentIntentId as PaymentIntentId)
      .catch(() => {});
  }
  await paying.services.payments.settle(workspaceId, settlement.id).catch(() => {});

  expect(await paymentState(paying, chain.rpcUrl, victims.id, [payer.address, shop.wallet.address])).toMatchObject({
    status: 'paid',
    intents: [{ status: 'succeeded', tx_hash: txHash }],
    balances: [4_000_000n, 1_000_000n],
  });
  const attackersState = await paymentState(paying, chain.rpcUrl, attackers.id, []);
  expect(attackersState.status).toBe('open');
  expect(attackersState.intents.filter((intent) => intent.status === 'succeeded')).toEqual([]);
});
