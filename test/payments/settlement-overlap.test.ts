import { expect, it } from 'vitest';
import { invoiceOrder } from '../../src/modules/payment-engine/order.js';
import type { InvoiceId } from '../../src/modules/invoices/invoice.js';
import type { ChainPort } from '../../src/chain/chain-port.js';
import { decodePaymentHeader } from '../../src/modules/x402/x402.js';
import type { WorkspaceId } from '../../src/shared/ids.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import { signPaymentHeader } from '../support/x402.js';

const chain = await createControlledChain({ confirmations: 1 });
let signings = 0;
const countingPort: ChainPort = {
  ...chain.chain,
  signSettlement(...args) {
    signings += 1;
    return chain.chain.signSettlement(...args);
  },
};
// No worker: the test runs the settlement job itself, twice at once.
const paying = await startPayingApp({ networks: chain.networks, chain: countingPort }, { worker: false });

/**
 * Two runs of one settlement job overlap when a worker loses its lease (a stalled process, a database
 * hiccup during the heartbeat) and another worker takes the job over. `settle` promises it is safe to run
 * again at any point.
 */
it('two overlapping runs of one settlement sign one transaction, and the invoice ends paid', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1');
  const payer = await chain.payer(5_000_000n);
  const submission = decodePaymentHeader(await signPaymentHeader(payer, invoice.payUrl), 2);
  if (typeof submission === 'string') throw new Error(submission);
  const workspaceId = shop.workspaceId as WorkspaceId;
  const intent = await paying.services.payments.submitAuthorization(
    workspaceId,
    invoiceOrder(invoice.id as InvoiceId),
    submission,
  );
  // As on a real chain, the settlement waits in the mempool for the next block.
  await chain.setAutomine(false);

  const settle = () => paying.services.payments.settle(workspaceId, intent.id).catch((error: unknown) => error);
  // Both runs read the intent before either stored a transaction; the relayer lock orders their signing.
  await Promise.all([settle(), settle()]);
  const sentBeforeMining = await chain.transactionCount(chain.relayer);
  await chain.mine(1);
  await settle();

  // The second run must not even try to sign: anvil estimates gas against its pending state and would
  // refuse a second copy, but geth-based nodes (Base) estimate against the latest block and sign it; the
  // copy reverts, and the intent, following it, failed as already_used although the shop was paid.
  expect(signings).toBe(1);

  expect(await paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address])).toMatchObject({
    status: 'paid',
    intents: [{ status: 'succeeded' }],
    balances: [4_000_000n, 1_000_000n],
  });
  expect(sentBeforeMining).toBe(1);
});
