import { expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { pdfText } from '../support/pdf.js';
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
      receiptNumber: 'RCT-000001',
      invoiceId: id,
      number: 'INV-000001',
      merchant: { name: expect.any(String) },
      chainId: chain.network.chainId,
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

it(
  'numbers receipts per workspace in the order invoices are paid, and gives each as a PDF whose text says it all',
  { timeout: 60_000 },
  async () => {
    const shop = await openShop(paying);
    await paying.database.db
      .updateTable('workspaces')
      .set({ support_contact: 'https://help.example/orders' })
      .where('id', '=', shop.workspaceId)
      .execute();
    const pay = async (amount: string) => {
      const invoice = await shop.invoice(amount, { description: 'Ручная керамика, set of 2' });
      const paid = await payV2(await chain.payer(5_000_000n))(invoice.payUrl);
      expect(paid.status).toBe(200);
      return invoice;
    };
    const first = await pay('1.10');
    const second = await pay('2.20');
    const numbers = await Promise.all(
      [first, second].map(
        async (invoice) =>
          (await shop.api('GET', `/invoices/${invoice.id}/receipt`)).json<{ receiptNumber: string }>().receiptNumber,
      ),
    );
    expect(numbers).toEqual(['RCT-000001', 'RCT-000002']);

    const asked = await paying.app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${second.id}/receipt`,
      headers: { authorization: `Bearer ${shop.apiKey}`, accept: 'application/pdf' },
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.headers['content-type']).toBe('application/pdf');
    expect(asked.headers['content-disposition']).toBe('attachment; filename="RCT-000002.pdf"');
    expect(asked.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const json = (await shop.api('GET', `/invoices/${second.id}/receipt`)).json<{
      transactionHash: string;
      number: string;
    }>();
    const text = await pdfText(asked.rawPayload);
    expect(text).toContain('RCT-000002');
    expect(text).toContain(json.number);
    expect(text).toContain(json.transactionHash);
    expect(text).toContain('2.20 USDC');
    // What it was for and whom to ask, in any script DejaVu covers.
    expect(text).toContain('Ручная керамика, set of 2');
    expect(text).toContain('https://help.example/orders');
    expect((await shop.api('GET', `/invoices/${second.id}/receipt`)).json()).toMatchObject({
      description: 'Ручная керамика, set of 2',
      merchant: { supportContact: 'https://help.example/orders' },
    });
    expect(text).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);

    // JSON weighs more here: the API answers JSON unless the PDF is preferred.
    const either = await paying.app.inject({
      method: 'GET',
      url: `/w/${shop.workspaceId}/v1/invoices/${second.id}/receipt`,
      headers: { authorization: `Bearer ${shop.apiKey}`, accept: 'application/pdf;q=0.5, application/json' },
    });
    expect(either.json()).toMatchObject({ receiptNumber: 'RCT-000002' });
  },
);
