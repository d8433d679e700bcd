import type { Static } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import type { CheckoutPage, CheckoutView } from '../../modules/checkout/index.js';
import { html, jsonScript, type Html } from '../html.js';
import { CHECKOUT_ASSET_BASE, CHECKOUT_SCRIPT, registerCheckoutAssets } from './checkout.assets.js';
import { createHash } from 'node:crypto';
import { accentButtonColors, normaliseAccentColor, supportContactHref } from '../../modules/workspaces/index.js';
import { qrSvg } from './checkout.qr.js';
import { chainName } from '../../chain/chain-names.js';
import { networkName, receiptSection } from './checkout.receipt.js';
import {
  FAILURE_TEXTS,
  STATUS_LABELS,
  UNKNOWN_FAILURE_TEXT,
  displayAmount,
  formatInstantUtc,
  hashNote,
  type ShownStatus,
  formatRemaining,
  shownStatus,
} from './checkout.text.js';
import { ids, statusNoticeIds } from './checkout.ids.js';

export type CheckoutDetails = Static<typeof CheckoutView>;
type CheckoutNetwork = CheckoutDetails['networks'][number];

/**
 * Same-origin scripts, styles and fetches only; no inline code, no framing, no form posts (the script
 * sends JSON). `img-src data:` admits the wallet icons EIP-6963 announces as data URIs.
 */
export const CHECKOUT_PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The merchant's accent colour as the page's one inline style, admitted by its hash alone: the main
 * buttons in that colour, with the text colour (and if need be a shade of it) that keeps 4.5:1 contrast.
 */
export function accentStyle(accentColor: string | null): { css: string; csp: string } | undefined {
  const color = accentColor === null ? undefined : normaliseAccentColor(accentColor);
  if (color === undefined) return undefined;
  const { background, text } = accentButtonColors(color);
  const css = `:root{--brand:${background};--brand-text:${text}}`;
  const hash = createHash('sha256').update(css).digest('base64');
  return { css, csp: CHECKOUT_PAGE_CSP.replace("style-src 'self'", `style-src 'self' 'sha256-${hash}'`) };
}

/** Sent with both the page and the 404 page: private, unframed, unindexed, and no referrer leaves it. */
export const CHECKOUT_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CHECKOUT_PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
};

/**
 * What the browser script reads from `#checkout-config`. Its words (status labels, failure texts, chain
 * names) it bundles from the same modules this page is rendered with.
 */
export interface CheckoutClientConfig {
  /** Where the script polls the payment details and posts payments. */
  readonly path: string;
  readonly details: CheckoutDetails;
}

export interface CheckoutPageOptions {
  readonly workspaceId: string;
  /**
   * The local demo's built-in wallet script is added to the page, announcing the demo buyer only: the
   * demo merchant's wallet is this invoice's recipient (and holds no USDC), so it could not pay.
   */
  readonly demoWallet: boolean;
}

/**
 * Answers a browser: the checkout page, or for an unknown id (`details` undefined) the plain 404 page.
 * The route's schemas type its JSON answers; the page is the other representation of the same resource.
 */
export function sendCheckoutPage(
  reply: FastifyReply,
  details: CheckoutDetails | undefined,
  options: CheckoutPageOptions,
): FastifyReply {
  for (const [name, value] of Object.entries(CHECKOUT_PAGE_HEADERS)) reply.header(name, value);
  reply.type('text/html; charset=utf-8');
  if (!details) return reply.code(404).send(renderNotFoundPage());
  const accent = accentStyle(details.merchantAccentColor);
  if (accent) reply.header('Content-Security-Policy', accent.csp);
  return reply.send(renderCheckoutPage(details, options, accent?.css));
}

/**
 * The buyer's checkout page. Everything needed to read it and to pay from another device is in this
 * first paint (amount, recipient, network, QR, deadline, status); the script adds the live countdown and
 * status, the wallet buttons, the copy buttons and the transaction-hash form, which are `hidden` until it runs.
 */
export function renderCheckoutPage(details: CheckoutDetails, options: CheckoutPageOptions, accentCss?: string): string {
  const status = shownStatus(details, Date.parse(details.serverTime));
  const config: CheckoutClientConfig = {
    path: `/w/${encodeURIComponent(options.workspaceId)}/i/${encodeURIComponent(details.invoiceId)}`,
    details,
  };
  const payable = details.networks.length > 0 && details.recipient !== null;
  // A refused hash is told next to the hash field, where the buyer pastes the next one.
  const failed =
    status === 'open' && details.payment?.status === 'failed' && !(payable && details.payment.method === 'transaction')
      ? details.payment
      : undefined;
  const back = backLink(details);
  return page(
    `${details.number} — ${details.merchantName}`,
    html`<script type="module" src="${CHECKOUT_ASSET_BASE}${CHECKOUT_SCRIPT}"></script>
${options.demoWallet && html`<script type="module" src="/demo-wallet.js?roles=buyer"></script>`}
${jsonScript(ids.config, config)}
${accentCss && html`<style>${accentCss}</style>`}`,
    html`<header class="merchant">
  <p class="eyebrow">Payment to</p>
  <h1>${details.merchantName}</h1>
  ${details.merchantDescription && html`<p class="description">${details.merchantDescription}</p>`}
  ${details.merchantSupportContact ? html`<p class="support">Questions? <a href="${supportContactHref(details.merchantSupportContact)}" rel="noreferrer">${details.merchantSupportContact}</a></p>` : ''}
</header>
<section class="card summary">
  <p class="invoice-number">Invoice <strong>${details.number}</strong></p>
  <p class="amount"><span id="amount">${displayAmount(details.amount)}</span> <span class="unit">USDC</span></p>
  ${details.description !== null && html`<p class="purchase">${details.description}</p>`}
  <p><span id="${ids.status}" class="badge" data-status="${status}">${STATUS_LABELS[status]}</span></p>
  <p id="${ids.deadlineLine}" class="deadline" ${(status === 'paid' || status === 'unpayable') && 'hidden'}>
    <span id="${ids.timeLeft}" ${status !== 'open' && 'hidden'}>Time left <strong id="${ids.countdown}" role="timer">${formatRemaining(Date.parse(details.expiresAt) - Date.parse(details.serverTime))}</strong> ·</span>
    Deadline <time id="${ids.deadline}" datetime="${details.expiresAt}">${formatInstantUtc(details.expiresAt)}</time>
  </p>
</section>
${notices(status, failed?.failureReason ?? null, details.merchantNotified)}
${receiptSection(details)}
${payable && details.recipient !== null && paySection(details, details.recipient)}
<p class="back">${back ? html`<a id="${ids.backLink}" href="${back}" rel="noreferrer">Back to merchant</a>` : html`<a id="${ids.backLink}" rel="noreferrer" hidden>Back to merchant</a>`}</p>
<footer class="footer">Only people with this link can see this page.</footer>`,
  );
}

/** The answer for an unknown id and for another workspace's id alike: it must not tell them apart. */
export function renderNotFoundPage(): string {
  return page(
    'Not found',
    html``,
    html`<section class="card"><h1>Not found</h1><p>There is no payment at this address. Check the link you were given.</p></section>`,
  );
}

function page(title: string, scripts: Html, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${CHECKOUT_ASSET_BASE}checkout.css">
${scripts}
</head>
<body>
<main class="checkout">
${body}
</main>
</body>
</html>
`.value;
}

/** One notice per situation; the script shows the one that fits as the status changes. */
function notices(status: ShownStatus, failure: string | null, merchantNotified: boolean): Html {
  const failureText = failure ? (FAILURE_TEXTS[failure as keyof typeof FAILURE_TEXTS] ?? UNKNOWN_FAILURE_TEXT) : '';
  return html`<p id="${statusNoticeIds.processing}" class="notice warn" role="status" ${status !== 'processing' && 'hidden'}><strong>Your payment is being verified. Do not pay again.</strong> This page updates by itself; verification can finish after the timer runs out.</p>
<p id="${ids.noticeFailed}" class="notice error" role="alert" ${!failure && 'hidden'}>The last payment attempt did not count: <span id="${ids.failureReason}">${failureText}</span> The invoice is still unpaid. If money left your wallet for it, contact the merchant before paying again.</p>
<p id="${statusNoticeIds.paid}" class="notice ok" role="status" ${status !== 'paid' && 'hidden'}><strong>Paid. Thank you!</strong> ${merchantNotified ? 'The merchant has been notified.' : 'The payment is recorded for the merchant.'}</p>
<p id="${statusNoticeIds.expired}" class="notice" role="status" ${status !== 'expired' && 'hidden'}><strong>The payment deadline has passed.</strong> Do not send a payment for this invoice; ask the merchant for a new link.</p>
<p id="${statusNoticeIds.cancelled}" class="notice" role="status" ${status !== 'cancelled' && 'hidden'}><strong>The merchant cancelled this invoice.</strong> Do not send a payment for it.</p>
<p id="${statusNoticeIds.unpayable}" class="notice" role="status" ${status !== 'unpayable' && 'hidden'}><strong>This payment link can no longer be paid.</strong> The merchant now receives payments at another address. Do not send a payment for this invoice; ask the merchant for a new one.</p>
<p id="${ids.noticeReopened}" class="notice" role="status" hidden>This invoice can be paid again: reload the page to see how.</p>`;
}

/** The ways to pay: drawn only for a link that takes a payment (networks listed, an address to pay). */
function paySection(details: CheckoutDetails, recipient: string): Html {
  const [first] = details.networks;
  const amount = displayAmount(details.amount);
  return html`<div id="${ids.pay}" ${details.status !== 'open' && 'hidden'}>
${
  details.networks.length > 1
    ? html`<fieldset class="card networks"><legend>Network</legend>${details.networks.map(
        (network) =>
          html`<label><input type="radio" name="network" value="${network.name}" ${network === first && 'checked'}> ${networkName(network)}</label>`,
      )}</fieldset>`
    : html`<p class="network">Network ${first && networkName(first)}</p>`
}
<p id="${ids.gaslessOff}" class="notice" role="status" ${first?.gasless !== false && 'hidden'}>Paying from a browser wallet without a gas fee is unavailable right now. Send the amount from any wallet below: it pays the invoice just the same.</p>
<section id="${ids.walletPay}" class="card" hidden>
  <h2>Pay with a browser wallet</h2>
  <p class="muted">Your wallet signs a transfer of exactly ${amount} USDC. No gas fee: the payment service submits it.</p>
  <div id="${ids.wallets}" class="wallets"></div>
  <p id="${ids.noWallet}" hidden>No browser wallet found. Pay from any wallet below, or open this page in your wallet app's browser.</p>
  <p id="${ids.walletStatus}" class="status-line" aria-live="polite"></p>
  <p id="${ids.walletError}" class="form-error" role="alert" hidden></p>
</section>
<section id="transfer-pay" class="card">
  <h2>Pay from any wallet</h2>
  <noscript><p class="notice warn">After sending, this page needs JavaScript to take the transaction hash. Without it the merchant cannot see your payment: enable JavaScript before you pay.</p></noscript>
  ${details.networks.map((network) => networkPanel(network, amount, details.networks.length > 1))}
  <dl class="copy-list">
    <dt>Recipient address</dt>
    <dd><code id="recipient">${recipient}</code> <button type="button" class="copy small" data-copy="recipient" hidden>Copy</button></dd>
    <dt>Amount</dt>
    <dd><code id="amount-exact">${amount}</code> USDC <button type="button" class="copy small" data-copy="amount-exact" hidden>Copy</button></dd>
  </dl>
  <form id="${ids.txForm}" class="tx-form" hidden>
    <label for="${ids.txHash}">Sent it? Paste the transaction hash</label>
    <input id="${ids.txHash}" name="txHash" autocomplete="off" autocapitalize="off" spellcheck="false" placeholder="0x…" required>
    <button type="submit">Submit transaction</button>
    <p id="${ids.txError}" class="form-error" role="alert" hidden></p>
  </form>
  ${txNote(details)}
</section>
</div>`;
}

/**
 * What the page knows of the last submitted hash, beside the form that takes the next one; drawn empty
 * and hidden when there is nothing to say, for the script to fill in.
 */
function txNote(details: CheckoutDetails): Html {
  const note = shownStatus(details, Date.parse(details.serverTime)) === 'open' ? hashNote(details.payment) : undefined;
  return html`<p id="${ids.txNote}" class="notice tx-note" role="status" data-kind="${note?.kind ?? ''}" ${!note && 'hidden'}>${note?.text ?? ''}</p>`;
}

/**
 * One network's way to pay from any wallet. On a phone the wallet app link is the action and the QR code
 * (for a second device) folds away under its summary; on a wide screen the QR code leads (checkout.css).
 */
function networkPanel(network: CheckoutNetwork, amount: string, titled: boolean): Html {
  const { label } = chainName(network.chainId, network.name);
  return html`<div class="network-panel" data-network="${network.name}">
  ${titled && html`<h3>${networkName(network)}</h3>`}
  <details class="qr-box" open>
    <summary>Pay from another device</summary>
    <a class="qr" href="${network.paymentUri}" title="Open in a wallet app">${qrSvg(network.paymentUri, `QR code: pay ${amount} USDC on ${label}`)}</a>
  </details>
  <a class="button primary open-wallet" href="${network.paymentUri}">Open in a wallet app</a>
  <p>Send exactly <strong>${amount} USDC</strong> on <strong>${label}</strong> (chain ${network.chainId}) to the address below, with a plain transfer of the USDC token <code class="token">${network.token}</code>.</p>
</div>`;
}

/**
 * "Back to merchant": the success URL once paid, else the cancel URL, exactly as the merchant gave it
 * (nothing appended: a redirect is never proof of payment). Following it cancels nothing.
 */
function backLink(details: Pick<CheckoutDetails, 'status' | 'successUrl' | 'cancelUrl'>): string | undefined {
  const url = details.status === 'paid' ? details.successUrl : details.cancelUrl;
  // The API accepts only https URLs of allowed origins; checked again so no other scheme becomes a link.
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

/** The page as the checkout routes serve it (src/main wires it in). */
export const checkoutPage: CheckoutPage = { registerAssets: registerCheckoutAssets, send: sendCheckoutPage };
