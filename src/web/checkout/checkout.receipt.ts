import { chainName } from '../../chain/chain-names.js';
import { supportContactHref } from '../../modules/workspaces/index.js';
import { html, type Html } from '../html.js';
import type { CheckoutDetails } from './checkout.page.js';
import { displayAmount, formatInstantUtc, shortHash } from './checkout.text.js';
import { ids } from './checkout.ids.js';

/** A network as buyers read it: "Base Sepolia" with a Testnet badge, not "base-sepolia chain 84532". */
export function networkName(network: { name: string; chainId: number }): Html {
  const { label, testnet } = chainName(network.chainId, network.name);
  return html`<strong>${label}</strong>${testnet && html` <span class="badge testnet">Testnet</span>`}`;
}

/**
 * The buyer's receipt: everything needed to prove the payment, on its own (the print stylesheet prints
 * this section alone). Drawn filled in when the page is drawn paid; drawn empty and hidden otherwise,
 * and then filled by the script (client/receipt.ts) when the payment lands while the page is open.
 */
export function receiptSection(details: CheckoutDetails): Html {
  const receipt = details.status === 'paid' ? details.receipt : null;
  const hash = receipt?.transactionHash ?? '';
  return html`<section id="${ids.receipt}" class="card receipt" aria-labelledby="receipt-title" ${!receipt && 'hidden'}>
  <h2 id="receipt-title">Receipt</h2>
  <dl class="receipt-list">
    <dt>Receipt</dt><dd id="${ids.receiptNumber}">${receipt?.receiptNumber ?? ''}</dd>
    <dt>Paid to</dt><dd>${details.merchantName}</dd>
    <dt>Invoice</dt><dd>${details.number}</dd>
    ${details.description ? html`<dt>For</dt><dd class="receipt-description">${details.description}</dd>` : ''}
    <dt>Amount</dt><dd><strong>${displayAmount(details.amount)} USDC</strong></dd>
    <dt>Paid on</dt><dd><time id="${ids.receiptPaidAt}" datetime="${receipt?.paidAt ?? ''}">${receipt ? formatInstantUtc(receipt.paidAt) : ''}</time></dd>
    <dt>Network</dt><dd id="${ids.receiptNetwork}">${receipt ? networkName({ name: receipt.network, chainId: receipt.chainId }) : ''}</dd>
    <dt>Paid from</dt><dd><code id="${ids.receiptPayer}">${receipt?.payer ?? ''}</code></dd>
    <dt>Transaction</dt>
    <dd class="receipt-tx">
      <code id="${ids.receiptTx}" title="${hash}" data-full="${hash}">${shortHash(hash)}</code>
      <button type="button" class="copy small" data-copy="${ids.receiptTx}" hidden>Copy</button>
      <a id="${ids.receiptTxLink}" ${receipt?.transactionUrl ? html`href="${receipt.transactionUrl}"` : 'hidden'} rel="noreferrer" target="_blank">View on block explorer</a>
    </dd>
    ${details.merchantSupportContact ? html`<dt>Questions</dt><dd><a href="${supportContactHref(details.merchantSupportContact)}" rel="noreferrer">${details.merchantSupportContact}</a></dd>` : ''}
  </dl>
  <p class="receipt-actions">
    <a id="${ids.receiptPdf}" class="button primary" ${receipt ? html`href="${receipt.pdfUrl}"` : ''} download>Download receipt (PDF)</a>
    <button type="button" id="${ids.printReceipt}" hidden>Print receipt</button>
  </p>
</section>`;
}
