import { afterEach, expect, it } from 'vitest';
import { createWalletClient, http, type Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createLocalPublicClient, localChain, usdcBalance } from '../../src/chain/local-chain.js';
import { fundGas, settledPayment, signCheckoutAuthorization } from '../support/checkout.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { openShop, startPayingApp, type PayingApp, type Shop } from '../support/paying-app.js';
import {
  bodyOf,
  encodeBase64Json,
  payV1,
  payV2,
  recordingFetch,
  sendPayment,
  signPaymentHeader,
  type SentPayment,
} from '../support/x402.js';

// Payments made for invoice A must pay A, whoever mines them and wherever they are sent. A and B are
// invoices of one merchant for the same amount: everything a transfer shows fits both.
const chain = await createControlledChain({ confirmations: 1 });
const paying: PayingApp = await startPayingApp(chain);
const reader = createLocalPublicClient(chain.rpcUrl);
afterEach(() => chain.setAutomine(true));

const checkoutPath = (shop: Shop, invoiceId: string) => `/w/${shop.workspaceId}/i/${invoiceId}`;

async function details(path: string) {
  const response = await paying.app.inject({ method: 'GET', url: path, headers: { accept: 'application/json' } });
  return response.json();
}

async function intentsOf(invoiceId: string) {
  return paying.database.db
    .selectFrom('payment_intents')
    .select(['status', 'failure_reason', 'tx_hash', 'method'])
    .where('invoice_id', '=', invoiceId)
    .orderBy('created_at')
    .execute();
}

/** Waits until the settlement of the invoice's authorization is in the node's mempool; its hash. */
async function pendingSettlement(invoiceId: string): Promise<Hash> {
  for (let tries = 0; tries < 200; tries++) {
    const hash = (await intentsOf(invoiceId))[0]?.tx_hash as Hash | null | undefined;
    if (hash && (await chain.knows(hash))) return hash;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no settlement of ${invoiceId} reached the mempool`);
}

/** What a mempool watcher does: sends the same call from its own account with a higher tip. */
async function copyWithHigherFee(hash: Hash): Promise<Hash> {
  const original = await reader.getTransaction({ hash });
  const copier = privateKeyToAccount(generatePrivateKey());
  await fundGas(chain.rpcUrl, copier.address);
  const wallet = createWalletClient({
    chain: localChain(chain.rpcUrl),
    transport: http(chain.rpcUrl),
    account: copier,
  });
  return wallet.sendTransaction({
    to: original.to!,
    data: original.input,
    gas: original.gas,
    maxFeePerGas: original.maxFeePerGas! * 2n,
    maxPriorityFeePerGas: original.maxPriorityFeePerGas! * 2n + 1_000_000_000n,
  });
}

it(
  'a copy of the buyer authorization mined first from the mempool pays the invoice it was signed for, never another',
  { timeout: 90_000 },
  async () => {
    const shop = await openShop(paying);
    const [a, b] = [await shop.invoice('3'), await shop.invoice('3')];
    const payer = await chain.payer(10_000_000n);
    const view = await details(checkoutPath(shop, a.id));

    await chain.setAutomine(false);
    const submitted = await paying.app.inject({
      method: 'POST',
      url: `${checkoutPath(shop, a.id)}/authorizations`,
      payload: await signCheckoutAuthorization(payer, view, view.authorizationNonce),
    });
    expect(submitted.statusCode).toBe(202);
    const relayed = await pendingSettlement(a.id);
    const copy = await copyWithHigherFee(relayed);
    // The copy's hash is handed in for B before it is even mined.
    const claim = await paying.app.inject({
      method: 'POST',
      url: `${checkoutPath(shop, b.id)}/transactions`,
      payload: { network: 'base-sepolia', txHash: copy },
    });
    expect(claim.statusCode).toBe(202);
    await chain.mine(1);
    // The copy ran the authorization; the relayer's own transaction reverted behind it.
    expect((await reader.getTransactionReceipt({ hash: copy })).status).toBe('success');
    expect((await reader.getTransactionReceipt({ hash: relayed })).status).toBe('reverted');
    await chain.setAutomine(true);
    chain.startMining(200);
    try {
      const paidA = await settledPayment(paying.app, checkoutPath(shop, a.id), 30_000);
      expect(paidA).toMatchObject({ status: 'paid', payment: { status: 'succeeded', transactionHash: copy } });
      const refusedB = await settledPayment(paying.app, checkoutPath(shop, b.id), 30_000);
      expect(refusedB).toMatchObject({
        status: 'open',
        payment: { status: 'failed', failureReason: 'authorized_for_another_order' },
      });
    } finally {
      await chain.stopMining();
    }
    expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(7_000_000n);
    expect(await usdcBalance(chain.rpcUrl, shop.wallet.address)).toBe(3_000_000n);
    // Submitted again for B once A recorded it: refused at once.
    const again = await paying.app.inject({
      method: 'POST',
      url: `${checkoutPath(shop, b.id)}/transactions`,
      payload: { network: 'base-sepolia', txHash: copy },
    });
    expect(again.statusCode).toBe(400);
  },
);

it('a v2 payment built from one invoice 402 is refused by another invoice x402 URL, then pays its own', async () => {
  const shop = await openShop(paying);
  const [a, b] = [await shop.invoice('2'), await shop.invoice('2')];
  const payer = await chain.payer(10_000_000n);
  const header = await signPaymentHeader(payer, a.payUrl);

  const steered = await sendPayment(b.payUrl, { name: 'PAYMENT-SIGNATURE', value: header });
  expect(steered.status).toBe(402);
  expect((await bodyOf<{ error: string }>(steered)).error).toMatch(/made for another resource/);
  expect(await intentsOf(b.id)).toEqual([]);
  expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(10_000_000n);

  const own = await sendPayment(a.payUrl, { name: 'PAYMENT-SIGNATURE', value: header });
  expect(own.status).toBe(200);
  expect((await details(checkoutPath(shop, b.id))).status).toBe('open');
  expect((await details(checkoutPath(shop, a.id))).status).toBe('paid');
  expect(await usdcBalance(chain.rpcUrl, shop.wallet.address)).toBe(2_000_000n);
});

it('a checkout authorization signed for one invoice is refused at another invoice x402 URL, then pays its own', async () => {
  const shop = await openShop(paying);
  const [a, b] = [await shop.invoice('1.5'), await shop.invoice('1.5')];
  const payer = await chain.payer(10_000_000n);
  const view = await details(checkoutPath(shop, a.id));
  const signed = await signCheckoutAuthorization(payer, view, view.authorizationNonce);
  const v1Header = encodeBase64Json({
    x402Version: 1,
    scheme: 'exact',
    network: 'base-sepolia',
    payload: { signature: signed.signature, authorization: signed.authorization },
  });

  const steered = await sendPayment(b.payUrl, { name: 'X-PAYMENT', value: v1Header });
  expect(steered.status).toBe(402);
  expect((await bodyOf<{ error: string }>(steered)).error).toMatch(/made for another invoice/);
  expect(await intentsOf(b.id)).toEqual([]);

  const own = await paying.app.inject({
    method: 'POST',
    url: `${checkoutPath(shop, a.id)}/authorizations`,
    payload: signed,
  });
  expect(own.statusCode).toBe(202);
  expect(await settledPayment(paying.app, checkoutPath(shop, a.id))).toMatchObject({ status: 'paid' });
  expect((await details(checkoutPath(shop, b.id))).status).toBe('open');
  expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(8_500_000n);
});

it('an x402 v1 payment signed before a renewal is refused after it; one signed after pays', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1');
  const payer = await chain.payer(10_000_000n);
  // The unmodified v1 client signs; its request is stopped before it leaves.
  const stopped = new Error('held back');
  const recorder = recordingFetch({
    beforePayment: () => {
      throw stopped;
    },
  });
  await expect(payV1(payer, recorder.fetch)(invoice.payUrl)).rejects.toThrow();
  const signedBefore: SentPayment = recorder.sent[0]!;
  // The renewal happens in a later second than the signature (authorizations count whole seconds).
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  const renewed = await shop.api('POST', `/invoices/${invoice.id}/renew`, {});
  expect(renewed.json()).toMatchObject({ linkVersion: 2 });

  const stale = await sendPayment(invoice.payUrl, signedBefore);
  expect(stale.status).toBe(402);
  expect((await bodyOf<{ error: string }>(stale)).error).toMatch(/signed before this payment link was renewed/);
  expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(10_000_000n);

  const fresh = await payV1(payer)(invoice.payUrl);
  expect(fresh.status).toBe(200);
  expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(9_000_000n);
});

it('a v2 payment made before a renewal is refused after it, by its echoed link version', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1');
  const payer = await chain.payer(10_000_000n);
  const header = await signPaymentHeader(payer, invoice.payUrl);
  await shop.api('POST', `/invoices/${invoice.id}/renew`, {});

  const stale = await sendPayment(invoice.payUrl, { name: 'PAYMENT-SIGNATURE', value: header });
  expect(stale.status).toBe(402);
  expect((await payV2(payer)(invoice.payUrl)).status).toBe(200);
  expect(await usdcBalance(chain.rpcUrl, payer.address)).toBe(9_000_000n);
});
