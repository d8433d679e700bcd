// The health issues (GET /issues) in the portal's words: what happened, where the fix is, what to do there.
// No DOM here, so that every kind's words can be checked without a browser.
import type { Issue } from './api-types.js';

/** Issue kinds (GET /issues) in words, the panel where the fix is, and the link's words when not "Go there". */
const ISSUES: Readonly<Record<Issue['kind'], readonly [title: string, href: string, action?: string]>> = {
  payment_reverted: ['A confirmed payment was reverted', '#invoices', 'Find the invoice'],
  automation_paused: ['An automation is paused', '#automations', 'Review automations'],
  webhook_deliveries_failed: ['Webhook deliveries failed', '#api'],
  webhook_paused: ['Webhook delivery is paused', '#api'],
  overpayments_received: ['A payment arrived for an invoice already settled', '#invoices', 'Find the invoice'],
  unmatched_transfers: ['A transfer paid no invoice by itself', '#received', 'Resolve it'],
  low_credits: ['Credits are running low', '#billing', 'Buy credits'],
  verification_delayed: ['Payments are slow to verify', '#invoices'],
  webhook_deliveries_retrying: ['Webhook deliveries are being retried', '#api'],
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const events = (n: number) => (n === 1 ? '1 event' : `${n} events`);

/** "30 seconds", "30 minutes", "2 hours": a retry delay as people say it. */
export function durationWords(seconds: number): string {
  if (seconds < 120) return plural(seconds, 'second');
  if (seconds < 7200) return plural(Math.round(seconds / 60), 'minute');
  return plural(Math.round(seconds / 3600), 'hour');
}

/**
 * What to do about each issue from this page. The service's hints are written for API clients
 * (endpoints and request bodies); here the tabs and buttons of the portal do the same, so every kind
 * has its own words and no API path reaches the page.
 */
export type Hints = Readonly<Record<Issue['kind'], (issue: Issue) => string>>;

export function portalHints(retrySchedule: readonly number[]): Hints {
  const longest = Math.max(0, ...retrySchedule);
  return {
    // A warning only when the owner paused every one of them: nothing to fix then, only to resume.
    automation_paused: ({ count = 0, severity }) =>
      severity === 'warning'
        ? `${count === 1 ? '1 automation is' : `${count} automations are`} paused by you and creating no invoices. ` +
          'When it should go on, press Resume in the Automations tab: it continues with the next date still to come.'
        : `${count === 1 ? '1 automation is' : `${count} automations are`} paused and creating no invoices. ` +
          'The Automations tab says why each one stopped: remove the cause, then press Resume. ' +
          'It continues with the next date still to come; invoices already created stay payable.',
    payment_reverted: ({ count = 0 }) =>
      `${count === 1 ? '1 confirmed payment was' : `${count} confirmed payments were`} taken out of the chain by a reorganisation ` +
      "before it was final: the money did not arrive. Do not ship for it; if you already did, contact the buyer. The invoice's " +
      'timeline shows which payment; the invoice is payable again, and pays itself if the same transaction is mined again.',
    overpayments_received: ({ count = 0 }) =>
      `${count === 1 ? '1 payment' : `${count} payments`} arrived for ${count === 1 ? 'an invoice' : 'invoices'} ` +
      'already paid by another payment, or cancelled. The money is in your wallet; this service makes no refunds, ' +
      "so return it to the payer yourself: the invoice's timeline shows who paid and the transaction.",
    unmatched_transfers: ({ count = 0 }) =>
      `${count === 1 ? '1 transfer' : `${count} transfers`} reached your wallet without paying an invoice by ${count === 1 ? 'itself' : 'themselves'}: ` +
      'several open invoices had its amount, none did, or it came after the deadline. ' +
      'In the Received tab, pay the invoice each was meant for, or dismiss it once you have settled it with the sender.',
    low_credits: () =>
      'Each new invoice and renewal takes credits; once the available credits run out they are refused. ' +
      'Buy credits in the Billing tab before that happens.',
    verification_delayed: ({ count = 0 }) =>
      `${count === 1 ? '1 payment is' : `${count} payments are`} still being verified long after ${count === 1 ? 'it was' : 'they were'} submitted. ` +
      'Buyers must not pay again: a late confirmation still completes the invoice. ' +
      "If this lasts, the service's connection to the network may be down: tell the operator of this service.",
    webhook_deliveries_failed: ({ count = 0 }) =>
      `${events(count)} ${count === 1 ? 'was' : 'were'} given up after the retry window without a 2xx answer from your receiver. ` +
      'Fix the receiver, then press Retry now next to each failed delivery in the API tab.',
    webhook_deliveries_retrying: ({ count = 0 }) =>
      `${events(count)} failed at least once and ${count === 1 ? 'is' : 'are'} retried automatically` +
      `${longest > 0 ? `, up to about ${durationWords(longest)} apart` : ''}. ` +
      'Check that your receiver answers 2xx within 8 seconds: the API tab shows the last status of each delivery.',
    webhook_paused: ({ count = 0 }) =>
      `Webhook delivery is paused; ${events(count)} waiting for it ${count === 1 ? 'is' : 'are'} kept. ` +
      'Put the current signing secret in your receiver and send a test event, then press Resume delivery in the API tab: the backlog is delivered.',
  };
}

/** The banner entry of one issue. A kind this page does not know (a newer service) keeps the service's words. */
export function issueWords(
  issue: Issue,
  hints: Hints,
): { readonly title: string; readonly href: string; readonly action: string; readonly hint: string } {
  const [title, href, action = 'Go there'] = ISSUES[issue.kind] ?? [issue.kind, '#overview'];
  return { title, href, action, hint: hints[issue.kind]?.(issue) ?? issue.hint };
}
