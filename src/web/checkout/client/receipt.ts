// The receipt a buyer keeps: filled in here when the payment lands while the page is open (a page drawn
// paid has it from the server, checkout.receipt.ts, in the same markup and the same words).
import { chainName } from '../../../chain/chain-names.js';
import type { CheckoutDetails } from '../checkout.page.js';
import { shortHash } from '../checkout.text.js';
import { byId } from '../../shared/client/dom.js';
import { ids } from '../checkout.ids.js';

export type CheckoutReceipt = NonNullable<CheckoutDetails['receipt']>;

/** Fills `#receipt` from the details' `receipt`, or hides it when there is none (not paid). */
export function renderReceipt(receipt: CheckoutReceipt | null): void {
  const section = byId(ids.receipt);
  section.hidden = !receipt;
  if (!receipt) return;
  byId(ids.receiptNumber).textContent = receipt.receiptNumber;
  byId(ids.receiptPdf, HTMLAnchorElement).href = receipt.pdfUrl;
  const paidAt = byId(ids.receiptPaidAt, HTMLTimeElement);
  paidAt.dateTime = receipt.paidAt;
  // The buyer's own time, with its zone named; the UTC time stays in the title and in the PDF.
  paidAt.textContent = new Date(receipt.paidAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
  paidAt.title = `${receipt.paidAt.slice(0, 10)} ${receipt.paidAt.slice(11, 19)} UTC`;
  byId(ids.receiptPayer).textContent = receipt.payer ?? '';
  const { label, testnet } = chainName(receipt.chainId, receipt.network);
  const name = Object.assign(document.createElement('strong'), { textContent: label });
  const badge = Object.assign(document.createElement('span'), { className: 'badge testnet', textContent: 'Testnet' });
  byId(ids.receiptNetwork).replaceChildren(...(testnet ? [name, ' ', badge] : [name]));
  const hash = byId(ids.receiptTx);
  hash.textContent = shortHash(receipt.transactionHash);
  hash.title = receipt.transactionHash;
  hash.dataset.full = receipt.transactionHash;
  const link = byId(ids.receiptTxLink, HTMLAnchorElement);
  // Built by the server from the operator's https explorer URL; checked again so no other scheme links.
  const url = receipt.transactionUrl;
  if (url && /^https:\/\//i.test(url)) link.href = url;
  link.hidden = !(url && /^https:\/\//i.test(url));
}
