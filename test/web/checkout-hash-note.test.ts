import { describe, expect, it } from 'vitest';
import { renderCheckoutPage, type CheckoutDetails } from '../../src/web/checkout/checkout.page.js';
import { hashNote } from '../../src/web/checkout/checkout.text.js';
import { openInvoiceDetails } from '../support/checkout-details.js';

const HASH = `0x${'ab'.repeat(32)}`;
const SHORT = '0xabababab…abababab';

const openInvoice = openInvoiceDetails();

const claim = (changes: Partial<NonNullable<CheckoutDetails['payment']>>): CheckoutDetails['payment'] => ({
  id: 'pi_test',
  status: 'processing',
  failureReason: null,
  method: 'transaction',
  network: 'base-sepolia',
  transactionHash: HASH,
  submittedAt: '2030-01-01T00:00:00.000Z',
  finishedAt: null,
  foundAt: null,
  ...changes,
});

/** The first paint's note beside the hash field: its kind and text, or undefined while hidden. */
function paintedNote(details: CheckoutDetails): { kind: string; text: string } | undefined {
  const page = renderCheckoutPage(details, { workspaceId: 'ws_test', demoWallet: false });
  const found =
    /<p id="tx-note" class="notice tx-note" role="status" data-kind="([a-z]*)" ?(hidden)?>([^<]*)<\/p>/.exec(page);
  if (!found) throw new Error('no hash note on the page');
  return found[2] ? undefined : { kind: found[1]!, text: found[3]! };
}

const payOptionsDrawn = (details: CheckoutDetails) =>
  /<div id="pay" >/.test(renderCheckoutPage(details, { workspaceId: 'ws_test', demoWallet: false }));

describe('the note beside the hash field, as the server draws it (a reload shows what the page showed)', () => {
  it('says a hash still looked for holds nothing, with every way to pay drawn', () => {
    const details = { ...openInvoice, payment: claim({}) };
    expect(paintedNote(details)).toEqual({
      kind: 'unseen',
      text:
        `Looking for transaction ${SHORT} on the network. Until it is found there, nothing is paid; this page ` +
        'updates by itself when it is. If the hash is wrong, paste the right one, or pay another way.',
    });
    expect(payOptionsDrawn(details)).toBe(true);
  });

  it('says why a refused hash does not pay, there and not in the notice above', () => {
    const details = { ...openInvoice, payment: claim({ status: 'failed', failureReason: 'amount_mismatch' }) };
    expect(paintedNote(details)).toEqual({
      kind: 'refused',
      text:
        `Transaction ${SHORT} does not pay this invoice: the transaction did not send exactly the invoice amount. ` +
        'The invoice is still unpaid: paste another hash or pay another way. If money left your wallet for it, ' +
        'contact the merchant before paying again.',
    });
    const page = renderCheckoutPage(details, { workspaceId: 'ws_test', demoWallet: false });
    expect(page).toMatch(/<p id="notice-failed" [^>]* hidden>/);
    expect(payOptionsDrawn(details)).toBe(true);
  });

  it('tells a hash no node knew that it moved no money', () => {
    const note = hashNote(
      claim({ status: 'failed', failureReason: 'not_found', finishedAt: '2030-01-01T00:10:00.000Z' }),
    );
    expect(note).toEqual({
      kind: 'refused',
      text:
        `Transaction ${SHORT} does not pay this invoice: the transaction was not found on this network. ` +
        'The invoice is still unpaid: paste another hash or pay another way.',
    });
  });

  it('says nothing once the chain shows the transfer (the status says it is being verified), nor for an authorization', () => {
    expect(hashNote(claim({ foundAt: '2030-01-01T00:00:05.000Z' }))).toBeUndefined();
    expect(paintedNote({ ...openInvoice, payment: claim({ foundAt: '2030-01-01T00:00:05.000Z' }) })).toBeUndefined();
    expect(hashNote(claim({ method: 'authorization', status: 'failed', failureReason: 'expired' }))).toBeUndefined();
    expect(hashNote(null)).toBeUndefined();
  });
});
