import { wrapFetchWithPayment } from '@x402/fetch';
import { generatePaymentId } from '@x402/extensions/payment-identifier';
import { expect, it } from 'vitest';
import { createTestChain } from '../support/chain.js';
import { openShop, paymentState, startPayingApp } from '../support/paying-app.js';
import {
  bodyOf,
  decodeBase64Json,
  recordingFetch,
  sendPayment,
  signPaymentHeader,
  v2Client,
  withPaymentIdentifier,
} from '../support/x402.js';

// x402's payment-identifier extension with the unmodified @x402/fetch client and @x402/extensions' own
// helpers: a payment sent again under its id is answered as the first one was, and settles once.
const chain = await createTestChain();
const paying = await startPayingApp(chain);

async function paidOnce() {
  const shop = await openShop(paying);
  const invoice = await shop.invoice('1.25');
  const payer = await chain.payer(5_000_000n);
  const state = () => paymentState(paying, chain.rpcUrl, invoice.id, [payer.address, shop.wallet.address]);
  return { shop, invoice, payer, state };
}

const intentsNamed = (paymentId: string) =>
  paying.database.db
    .selectFrom('payment_intents')
    .select(['id', 'status'])
    .where('payment_identifier', '=', paymentId)
    .execute();

it('the 402 offers the extension; the same payment sent again after its success gets the same 200 and transaction, and nothing moves', async () => {
  const { invoice, payer, state } = await paidOnce();
  const offered = decodeBase64Json<{ extensions: Record<string, { info: { required: boolean } }> }>(
    (await fetch(invoice.payUrl)).headers.get('payment-required')!,
  );
  expect(offered.extensions['payment-identifier']?.info).toEqual({ required: false });

  const paymentId = generatePaymentId();
  const recorder = recordingFetch();
  const first = await wrapFetchWithPayment(
    recorder.fetch,
    withPaymentIdentifier(v2Client(payer), paymentId),
  )(invoice.payUrl);
  expect(first.status).toBe(200);
  const sentId = decodeBase64Json<{ extensions: Record<string, { info: { id: string } }> }>(recorder.sent[0]!.value)
    .extensions['payment-identifier']?.info.id;
  expect(sentId).toBe(paymentId);
  const paid = await state();
  expect(paid).toMatchObject({
    status: 'paid',
    intents: [{ status: 'succeeded' }],
    balances: [3_750_000n, 1_250_000n],
  });
  expect(await intentsNamed(paymentId)).toEqual([{ id: paid.intents[0]!.id, status: 'succeeded' }]);

  // The answer was lost; the client sends the same payment again.
  const again = await sendPayment(invoice.payUrl, recorder.sent[0]!);
  expect(again.status).toBe(200);
  expect(again.headers.get('payment-response')).toBe(first.headers.get('payment-response'));
  expect((await bodyOf(again)).paymentIntent).toEqual((await bodyOf(first)).paymentIntent);
  expect(await state()).toEqual(paid);
});

it('copies of one payment sent at once, while the first is still settling, all get its 200 and one settlement', async () => {
  const { invoice, payer, state } = await paidOnce();
  const header = await signPaymentHeader(payer, invoice.payUrl, undefined, generatePaymentId());

  const copies = await Promise.all(
    Array.from({ length: 4 }, () => sendPayment(invoice.payUrl, { name: 'PAYMENT-SIGNATURE', value: header })),
  );

  expect(copies.map((copy) => copy.status)).toEqual([200, 200, 200, 200]);
  const responses = new Set(copies.map((copy) => copy.headers.get('payment-response')));
  expect(responses.size).toBe(1);
  expect(decodeBase64Json([...responses][0]!)).toMatchObject({ success: true, payer: payer.address.toLowerCase() });
  expect(await state()).toMatchObject({ status: 'paid', intents: [{ status: 'succeeded' }] });
});

it('a payment identifier already used by another payment of the invoice is refused with 409 payment_identifier_conflict; nothing moves', async () => {
  const { shop, invoice, payer, state } = await paidOnce();
  const paymentId = generatePaymentId();
  // Another buyer's payment under the same id (another signature), made while the invoice was open.
  const other = await chain.payer(5_000_000n);
  const header = await signPaymentHeader(other, invoice.payUrl, undefined, paymentId);
  const first = await wrapFetchWithPayment(fetch, withPaymentIdentifier(v2Client(payer), paymentId))(invoice.payUrl);
  expect(first.status).toBe(200);
  const paid = await state();

  const refused = await sendPayment(invoice.payUrl, { name: 'PAYMENT-SIGNATURE', value: header });
  expect(refused.status).toBe(409);
  expect(await bodyOf(refused)).toMatchObject({
    code: 'payment_identifier_conflict',
    message: expect.stringContaining('new identifier'),
    requestId: expect.any(String),
  });
  expect(await state()).toEqual(paid);

  // The id belongs to the invoice it was used on: another invoice takes it for its own payment.
  const next = await shop.invoice('1.25');
  const elsewhere = await wrapFetchWithPayment(fetch, withPaymentIdentifier(v2Client(other), paymentId))(next.payUrl);
  expect(elsewhere.status).toBe(200);
});

it('a payment identifier that breaks the pattern is refused with 402 and the reason; nothing is recorded', async () => {
  const { invoice, payer, state } = await paidOnce();
  const header = await signPaymentHeader(payer, invoice.payUrl);
  const payload = decodeBase64Json<Record<string, unknown>>(header);
  payload.extensions = { 'payment-identifier': { info: { required: false, id: 'short id!' } } };
  const refused = await sendPayment(invoice.payUrl, {
    name: 'PAYMENT-SIGNATURE',
    value: Buffer.from(JSON.stringify(payload)).toString('base64'),
  });
  expect(refused.status).toBe(402);
  expect((await bodyOf(refused)).error).toMatch(/payment identifier must be 16 to 128/);
  expect(await state()).toMatchObject({ status: 'open', intents: [] });
});
