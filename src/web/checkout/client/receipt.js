/* global document */
// The receipt a buyer keeps: filled in here when the payment lands while the page is open (a page drawn
// paid has it from the server, checkout.receipt.ts, in the same markup).

/** The same shortening as the server's (checkout.text.ts): recognisable, the full hash in title and copy. */
export function shortHash(hash) {
  return hash.length > 18 ? `${hash.slice(0, 10)}…${hash.slice(-8)}` : hash;
}

/** "Base Sepolia" and whether it is a test network; a chain not in the list keeps its configured name. */
export function chainName(chains, chainId, name) {
  return chains[chainId] ?? { label: name, testnet: false };
}

/** Fills `#receipt` from the details' `receipt`, or hides it when there is none (not paid). */
export function renderReceipt(receipt, chains) {
  const section = document.getElementById('receipt');
  section.hidden = !receipt;
  if (!receipt) return;
  const $ = (id) => document.getElementById(id);
  const paidAt = $('receipt-paid-at');
  paidAt.dateTime = receipt.paidAt;
  paidAt.textContent = new Date(receipt.paidAt).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  const { label, testnet } = chainName(chains, receipt.chainId, receipt.network);
  const name = Object.assign(document.createElement('strong'), { textContent: label });
  const badge = Object.assign(document.createElement('span'), { className: 'badge testnet', textContent: 'Testnet' });
  $('receipt-network').replaceChildren(...(testnet ? [name, ' ', badge] : [name]));
  const hash = $('receipt-tx');
  hash.textContent = shortHash(receipt.transactionHash);
  hash.title = receipt.transactionHash;
  hash.dataset.full = receipt.transactionHash;
  const link = $('receipt-tx-link');
  // Built by the server from the operator's https explorer URL; checked again so no other scheme links.
  const url = receipt.transactionUrl;
  if (url && /^https:\/\//i.test(url)) link.href = url;
  link.hidden = !(url && /^https:\/\//i.test(url));
}
