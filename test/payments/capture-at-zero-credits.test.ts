import { expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { fundGas, settledPayment, transfer } from '../support/checkout.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

// Two credits: one invoice of an hour costs 1 and reserves its success fee of 1, leaving 0 available.
const chain = await createTestChain();
const paying = await startPayingApp(chain, { env: { NEW_WORKSPACE_CREDITS: '2', SUCCESS_FEE_CREDITS: '1' } });

async function shopAtZeroAvailable() {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1.25');
  expect((await shop.api('GET', '/billing')).json()).toMatchObject({
    creditBalance: 1,
    reservedCredits: 1,
    availableCredits: 0,
  });
  return { shop, invoice };
}

it(
  'an x402 payment at 0 available credits is recorded: the reserved fee is captured',
  { timeout: 60_000 },
  async () => {
    const { shop, invoice } = await shopAtZeroAvailable();
    const payer = await chain.payer(5_000_000n);

    const response = await payV2(payer)(invoice.payUrl);

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ invoiceId: invoice.id, status: 'paid' });
    expect((await shop.api('GET', '/billing')).json()).toMatchObject({
      creditBalance: 0,
      reservedCredits: 0,
      availableCredits: 0,
    });
  },
);

it('a transfer submitted at 0 available credits pays the invoice in its block', { timeout: 60_000 }, async () => {
  const { shop, invoice } = await shopAtZeroAvailable();
  const payer = await chain.payer(5_000_000n);
  await fundGas(chain.rpcUrl, payer.address);
  const { hash } = await transfer(chain.rpcUrl, payer, shop.wallet.address, 1_250_000n);

  const checkout = `/w/${shop.workspaceId}/i/${invoice.id}`;
  const submitted = await paying.app.inject({
    method: 'POST',
    url: `${checkout}/transactions`,
    payload: { network: 'base-sepolia', txHash: hash },
  });
  expect(submitted.statusCode).toBe(202);

  expect((await settledPayment(paying.app, checkout)).payment).toMatchObject({ status: 'succeeded' });
  expect((await shop.api('GET', `/invoices/${invoice.id}`)).json()).toMatchObject({ status: 'paid' });
  const ledger = (await shop.api('GET', '/billing/ledger')).json<{ entries: { kind: string }[] }>();
  expect(ledger.entries.map((entry) => entry.kind)).toContain('invoice.paid');
});
