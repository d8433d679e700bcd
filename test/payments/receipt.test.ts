import { expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { payV2 } from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain);

it(
  'answers 409 for the receipt of an unpaid invoice, and the receipt and payment intent once paid',
  { timeout: 60_000 },
  async () => {
    const shop = await openShop(paying);
    const created = await shop.api('POST', '/invoices', undefined);
    expect(created.statusCode).toBe(400); // no body, no Idempotency-Key: refused, nothing created
    const invoice = await paying.app.inject({
      method: 'POST',
      url: `/w/${shop.workspaceId}/v1/invoices`,
      headers: { authorization: `Bearer ${shop.apiKey}`, 'idempotency-key': 'receipt-order-77' },
      payload: { amount: '3.25', externalId: 'order-77' },
    });
    const { id, url } = invoice.json<{ id: string; url: string }>();

    const unpaid = await shop.api('GET', `/invoices/${id}/receipt`);
    expect(unpaid.statusCode).toBe(409);
    expect(unpaid.json()).toMatchObject({ code: 'invoice_not_paid', requestId: expect.any(String) });

    const payer = await chain.payer(5_000_000n);
    const paid = await payV2(payer)(url.replace('http://localhost:3000', paying.origin));
    expect(paid.status).toBe(200);
    const { paymentIntent } = (await paid.json()) as { paymentIntent: { id: string } };

    const receipt = await shop.api('GET', `/invoices/${id}/receipt`);
    expect(receipt.json()).toMatchObject({
      invoiceId: id,
      amount: '3.250000',
      currency: 'USDC',
      network: 'base-sepolia',
      payer: payer.address.toLowerCase(),
      recipient: shop.wallet.address.toLowerCase(),
      paymentIntentId: paymentIntent.id,
      externalId: 'order-77',
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      blockNumber: expect.stringMatching(/^\d+$/),
    });
    const intent = await shop.api('GET', `/payment-intents/${paymentIntent.id}`);
    expect(intent.json()).toMatchObject({
      status: 'succeeded',
      amount: '3.250000',
      recipient: shop.wallet.address.toLowerCase(),
      invoiceId: id,
      externalId: 'order-77',
    });
    const foreign = await shop.api('GET', '/payment-intents/pi_00000000000000000000000000');
    expect(foreign.statusCode).toBe(404);
  },
);
