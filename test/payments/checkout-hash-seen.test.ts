import { describe, expect, it } from 'vitest';
import { fundGas, transfer } from '../support/checkout.js';
import { createControlledChain } from '../support/controlled-chain.js';
import { readEventStream } from '../support/event-stream-reader.js';
import { openShop, startPayingApp } from '../support/paying-app.js';
import { until } from '../support/service-fleet.js';

// Blocks come only from the test (and one per transaction sent), so a transfer stays found and short of
// its three confirmations for as long as the test looks at it.
const chain = await createControlledChain({ confirmations: 3 });
const paying = await startPayingApp(chain, { orderChanges: true });
const shop = await openShop(paying);
const db = paying.database.db;

interface Details {
  readonly status: string;
  readonly recipient: string | null;
  readonly authorizationNonce: string | null;
  readonly networks: readonly unknown[];
  readonly payment: {
    readonly id: string;
    readonly method: string;
    readonly status: string;
    readonly failureReason: string | null;
    readonly transactionHash: string | null;
    readonly foundAt: string | null;
  } | null;
}

const checkoutPath = (invoiceId: string) => `/w/${shop.workspaceId}/i/${invoiceId}`;
const details = async (invoiceId: string) =>
  (await paying.app.inject({ url: checkoutPath(invoiceId), headers: { accept: 'application/json' } })).json<Details>();
const submitHash = (invoiceId: string, txHash: string) =>
  paying.app.inject({
    method: 'POST',
    url: `${checkoutPath(invoiceId)}/transactions`,
    payload: { network: 'base-sepolia', txHash },
  });
/** The invoice's status in the merchant API. */
const apiStatus = async (invoiceId: string) =>
  (await shop.api('GET', `/invoices/${invoiceId}`)).json<{ status: string }>().status;
/** The verification job of a submitted hash has looked at the chain and given itself back to wait. */
const looked = (intentId: string) =>
  until('the verification job to look for the hash', async () => {
    const job = await db.selectFrom('jobs').select('wake_on').where('unique_key', '=', intentId).executeTakeFirst();
    return job?.wake_on !== null && job?.wake_on !== undefined;
  });
const eventTypes = async (invoiceId: string) =>
  (await db.selectFrom('events').select('type').where('invoice_id', '=', invoiceId).orderBy('id').execute()).map(
    (event) => event.type,
  );

async function buyer(usdc: bigint) {
  const account = await chain.payer(usdc);
  await fundGas(chain.rpcUrl, account.address);
  return account;
}

describe('a hash pasted on the checkout link, as the payment details tell it', () => {
  it('a made-up hash holds nothing: the invoice stays open in the API, every way to pay stays, and the hash reads as looked for', async () => {
    const invoice = await shop.invoice('3');
    const stream = readEventStream(`${paying.origin}${checkoutPath(invoice.id)}/events`);
    expect((await stream.next(1)).data).toMatchObject({ status: 'open', payment: null });
    const madeUp = `0x${'7e'.repeat(32)}`;

    const claim = await submitHash(invoice.id, madeUp);
    expect(claim.statusCode).toBe(202);
    const { paymentIntentId } = claim.json<{ paymentIntentId: string }>();
    // The stream tells the claim although the invoice itself did not change: another tab shows it too.
    expect((await stream.next(2)).data).toMatchObject({
      status: 'open',
      payment: { id: paymentIntentId, status: 'processing', foundAt: null },
    });
    await looked(paymentIntentId);

    expect(await apiStatus(invoice.id)).toBe('open');
    const view = await details(invoice.id);
    expect(view).toMatchObject({
      status: 'open',
      recipient: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      authorizationNonce: expect.stringMatching(/^0x/),
      payment: {
        id: paymentIntentId,
        method: 'transaction',
        status: 'processing',
        failureReason: null,
        transactionHash: madeUp,
        foundAt: null,
      },
    });
    expect(view.networks).toHaveLength(1);
    expect(await eventTypes(invoice.id)).toEqual(['invoice.created']);
    // Another hash is taken at once, and becomes the one the details tell.
    const next = await submitHash(invoice.id, `0x${'7f'.repeat(32)}`);
    expect(next.statusCode).toBe(202);
    expect((await details(invoice.id)).payment).toMatchObject({
      id: next.json<{ paymentIntentId: string }>().paymentIntentId,
      foundAt: null,
    });
    stream.close();
  });

  it('a hash seen in a block paying the invoice: foundAt is set and the invoice turns processing, then paid at its confirmations', async () => {
    const invoice = await shop.invoice('2');
    const payer = await buyer(2_000_000n);
    const sent = await transfer(chain.rpcUrl, payer, shop.wallet.address, 2_000_000n);
    const claim = await submitHash(invoice.id, sent.hash);
    expect(claim.statusCode).toBe(202);

    const found = await until('the transfer to be found', async () => {
      const view = await details(invoice.id);
      return view.payment?.foundAt ? view : undefined;
    });
    expect(found).toMatchObject({
      status: 'processing',
      networks: [],
      authorizationNonce: null,
      payment: { status: 'processing', transactionHash: sent.hash, foundAt: expect.any(String) },
    });
    expect(await apiStatus(invoice.id)).toBe('processing');

    await chain.mine(2);
    await until('the invoice to be paid', async () => (await apiStatus(invoice.id)) === 'paid');
    expect((await details(invoice.id)).payment).toMatchObject({ status: 'succeeded', foundAt: found.payment!.foundAt });
  });

  it('a hash whose transfer pays another amount fails unseen, told on the stream; the invoice stays open and takes another hash', async () => {
    const invoice = await shop.invoice('4');
    const stream = readEventStream(`${paying.origin}${checkoutPath(invoice.id)}/events`);
    await stream.next(1);
    const payer = await buyer(10_000_000n);
    const short = await transfer(chain.rpcUrl, payer, shop.wallet.address, 3_000_000n);
    const claim = await submitHash(invoice.id, short.hash);
    expect(claim.statusCode).toBe(202);
    expect((await stream.next(2)).data).toMatchObject({ payment: { status: 'processing', foundAt: null } });
    // Nothing is judged before the confirmations: it is still looked for, and the invoice open.
    await looked(claim.json<{ paymentIntentId: string }>().paymentIntentId);
    expect(await apiStatus(invoice.id)).toBe('open');

    await chain.mine(2);
    const failed = await until('the failure on the stream', async () =>
      stream.events.map((event) => event.data as Details).find((state) => state.payment?.status === 'failed'),
    );
    expect(failed).toMatchObject({
      status: 'open',
      payment: { status: 'failed', failureReason: 'amount_mismatch', transactionHash: short.hash, foundAt: null },
    });
    expect(failed.networks).toHaveLength(1);
    expect(await apiStatus(invoice.id)).toBe('open');
    // No payment reached the feed; the transfer of another amount is recorded for the merchant.
    expect(await eventTypes(invoice.id)).toEqual(['invoice.created', 'transfer.unmatched']);
    expect((await submitHash(invoice.id, `0x${'6d'.repeat(32)}`)).statusCode).toBe(202);
    stream.close();
  });
});
