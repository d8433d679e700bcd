import { html } from '../portal/html.js';

/** What the interim page shows: a summary only, never payment instructions. */
export interface CheckoutSummary {
  readonly merchantName: string;
  readonly number: string;
  readonly amount: string;
  readonly status: string;
  readonly expiresAt: string;
}

/** Nothing runs and nothing loads: the page is text, so the strictest policy fits. */
export const CHECKOUT_PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The interim answer to a browser opening a checkout link, until the checkout page exists. It states the
 * invoice and says plainly that paying here is not possible yet, so nobody sends money that no page can
 * report. The payment details are served as JSON (Accept: application/json).
 */
export function renderCheckoutSummary(summary: CheckoutSummary): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${summary.number} — ${summary.merchantName}</title>
</head>
<body>
<h1>${summary.merchantName}: invoice ${summary.number}</h1>
<p>Amount: ${summary.amount} USDC. Status: ${summary.status}. Payment deadline: ${summary.expiresAt}.</p>
<p>Paying from this page is not available on this server yet. Do not send a payment based on this page; ask the merchant how to pay.</p>
</body>
</html>
`.value;
}
