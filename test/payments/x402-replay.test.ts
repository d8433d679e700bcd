import { describe, expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import {
  bodyOf,
  decodeBase64Json,
  payV1,
  payV2,
  recordingFetch,
  sendPayment,
  signPaymentHeader,
} from '../support/x402.js';

const chain = await createTestChain();
const paying = await startPayingApp(chain);

describe.each([
  { version: 'v1', client: payV1, header: 'X-PAYMENT', responseHeader: 'x-payment-response', network: 'base-sepolia' },
  {
    version: 'v2',
    client: payV2,
    header: 'PAYMENT-SIGNATURE',
    responseHeader: 'payment-response',
    network: 'eip155:84532',
  },
] as const)('an unmodified x402 $version client', ({ client, header, responseHeader, network }) => {
  it('pays an invoice once; its payment header replayed on the same or another invoice moves nothing', async () => {
    const shop = await openShop(paying);
    const invoice = await shop.invoice('2.5');
    const payer = await chain.payer(10_000_000n);
    const recorder = recordingFetch();

    const response = await client(payer, recorder.fetch)(invoice.payUrl);

    expect(response.status).toBe(200);
    const body = await bodyOf<{ paymentIntent: { transactionHash: string } }>(response);
    expect(body).toMatchObject({
      invoiceId: invoice.id,
      status: 'paid',
      paymentIntent: { status: 'succeeded', amount: '2.500000', payer: payer.address.toLowerCase() },
    });
    const settled = decodeBase64Json(response.headers.get(responseHeader)!);
    expect(settled).toMatchObject({
      success: true,
      network,
      transaction: body.paymentIntent.transactionHash,
      payer: payer.address.toLowerCase(),
    });
    expect(recorder.sent.map((sent) => sent.name)).toEqual([header]);
    const paid = await paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address]);
    expect(paid).toMatchObject({
      status: 'paid',
      balances: [7_500_000n, 2_500_000n],
      intents: [{ status: 'succeeded' }],
    });
    const receipt = await shop.api('GET', `/invoices/${invoice.id}/receipt`);
    expect(receipt.statusCode).toBe(200);
    expect(receipt.json()).toMatchObject({
      number: invoice.number,
      amount: '2.500000',
      payer: payer.address.toLowerCase(),
      transactionHash: body.paymentIntent.transactionHash,
    });

    // The same header again, as a client resends after a lost answer: the same payment, so the same
    // answer (200, the same transaction), and nothing moves.
    const replay = await sendPayment(invoice.payUrl, recorder.sent[0]!);
    expect(replay.status).toBe(200);
    expect(decodeBase64Json(replay.headers.get(responseHeader)!)).toEqual(settled);
    expect(await bodyOf(replay)).toMatchObject({
      invoiceId: invoice.id,
      status: 'paid',
      paymentIntent: body.paymentIntent,
    });
    expect(await paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address])).toEqual(paid);

    // The same header on another invoice of the same shop and amount: a v2 header names the invoice it
    // was made for; a v1 header does not, and the token used its nonce already.
    const other = await shop.invoice('2.5');
    const elsewhere = await sendPayment(other.payUrl, recorder.sent[0]!);
    expect(elsewhere.status).toBe(402);
    expect((await bodyOf(elsewhere)).error).toMatch(
      header === 'X-PAYMENT' ? /already used/ : /made for another resource/,
    );
    expect(await paymentState(paying, chain.rpcUrl, other.id, [payer.address, shop.wallet.address])).toEqual({
      status: 'open',
      intents: [],
      balances: [7_500_000n, 2_500_000n],
    });
  });
});

it('settles one payment header sent five times at once exactly once, and answers every copy with its success', async () => {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1');
  const payer = await chain.payer(5_000_000n);
  const header = await signPaymentHeader(payer, invoice.payUrl);

  const responses = await Promise.all(
    Array.from({ length: 5 }, () => sendPayment(invoice.payUrl, { name: 'PAYMENT-SIGNATURE', value: header })),
  );

  expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
  const settlements = responses.map((response) => response.headers.get('payment-response'));
  expect(new Set(settlements).size).toBe(1);
  expect(decodeBase64Json(settlements[0]!)).toMatchObject({ success: true, transaction: expect.stringMatching(/^0x/) });
  expect(await paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address])).toMatchObject({
    status: 'paid',
    intents: [{ status: 'succeeded' }],
    balances: [4_000_000n, 1_000_000n],
  });
});
