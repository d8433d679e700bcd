import { EXPIRES_IN_CREDITS } from '../invoices/index.js';

/** A payment still `processing` this long after it was submitted is reported as delayed. */
export const VERIFICATION_DELAY_MS = 10 * 60_000;

/** An overpayment stays listed this long after it landed: nothing here can settle it, the merchant does. */
export const OVERPAYMENT_LISTED_MS = 30 * 86_400_000;

/** A reverted payment stays listed this long: the merchant may have shipped, and only they can settle it. */
export const REVERTED_LISTED_MS = 30 * 86_400_000;

/** Credits are low below what this many invoices cost at the highest tariff, success fee included. */
export const LOW_CREDIT_INVOICES = 5;

/**
 * The low-credit warning level: 5 invoices at the highest tariff plus their success-fee reserve, i.e.
 * 5 × (3 + 1) = 20 credits with the default fee. Tied to the tariff rather than a fixed number so that
 * it still means "a few invoices left" when the operator changes the fee.
 */
export function lowCreditThreshold(successFeeCredits: number): number {
  return LOW_CREDIT_INVOICES * (Math.max(...Object.values(EXPIRES_IN_CREDITS)) + successFeeCredits);
}

/** What to do about the refusals that pause an automation. */
const PAUSE_CAUSES: Readonly<Record<string, string>> = {
  paused_by_owner: 'paused by you',
  insufficient_credits: 'buy credits in the Billing tab or with POST /credit-purchases',
  return_origin_not_allowed: 'allow the return origin again (PUT /checkout-settings) or change the template',
  amount_too_large: 'lower the template amount (PATCH /automations/{id})',
  unsupported_network: 'the network is no longer offered: change the template',
};

/** Every kind, most severe first: the order of the list GET /issues answers within each severity. */
export const ISSUE_KINDS = [
  'payment_reverted',
  'automation_paused',
  'webhook_deliveries_failed',
  'webhook_paused',
  'overpayments_received',
  'unmatched_transfers',
  'low_credits',
  'verification_delayed',
  'webhook_deliveries_retrying',
] as const;
export type IssueKind = (typeof ISSUE_KINDS)[number];
export type IssueSeverity = 'critical' | 'warning';

/**
 * Critical: something stopped and stays stopped until the merchant acts. Warning: it may heal by itself,
 * or is the merchant's own choice (automations they paused themselves: see the detector).
 */
const SEVERITY = {
  payment_reverted: 'critical',
  automation_paused: 'critical',
  webhook_deliveries_failed: 'critical',
  webhook_paused: 'critical',
  overpayments_received: 'warning',
  unmatched_transfers: 'warning',
  low_credits: 'warning',
  verification_delayed: 'warning',
  webhook_deliveries_retrying: 'warning',
} as const satisfies Record<IssueKind, IssueSeverity>;

export interface Issue {
  readonly kind: IssueKind;
  readonly severity: IssueSeverity;
  readonly since: string;
  readonly hint: string;
  readonly count?: number;
}

/** A number of things and the time the oldest of them began; `since` is null when there are none. */
export interface Tally {
  readonly count: number;
  readonly since: Date | null;
}

/** What the repository measured for one workspace. */
export interface HealthFacts {
  /** Present only while available credits are below `threshold`. */
  readonly lowCredits?: { readonly available: number; readonly threshold: number; readonly since: Date };
  readonly delayedVerifications: Tally;
  /** Invoice payments reverted by a reorganisation within REVERTED_LISTED_MS, and the invoice of the latest. */
  readonly revertedPayments: Tally & { readonly latestInvoiceId: string | null };
  /** Payments recorded as overpayments within OVERPAYMENT_LISTED_MS. */
  readonly overpayments: Tally;
  /** Received transfers not yet applied or dismissed. */
  readonly unmatchedTransfers: Tally;
  readonly failedDeliveries: Tally;
  readonly retryingDeliveries: Tally;
  /** Present only while the endpoint exists and is disabled; `backlog` = its pending deliveries. */
  readonly pausedEndpoint?: { readonly since: Date; readonly backlog: number };
  /**
   * Paused automations; `reason` is the pausedReason code of the one paused first by something other
   * than its owner, so `paused_by_owner` only when the owner paused every one of them.
   */
  readonly pausedAutomations: Tally & { readonly reason: string | null };
  /** The longest wait of WEBHOOK_RETRY_SCHEDULE (configuration, not the database), for the retry hint. */
  readonly longestRetrySeconds?: number;
}

/** "30 seconds", "30 minutes", "2 hours": a wait as people say it. */
export function durationWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (seconds < 120) return plural(seconds, 'second');
  if (seconds < 7200) return plural(Math.round(seconds / 60), 'minute');
  return plural(Math.round(seconds / 3600), 'hour');
}

type Found =
  | { readonly since: Date; readonly hint: string; readonly count?: number; readonly severity?: IssueSeverity }
  | undefined;

/** One detector per kind: the issue when the facts show it, else undefined. */
const DETECTORS: Record<IssueKind, (facts: HealthFacts) => Found> = {
  payment_reverted: ({ revertedPayments: { count, since, latestInvoiceId } }) =>
    count > 0 && since
      ? {
          since,
          count,
          hint:
            `${count === 1 ? '1 confirmed payment was' : `${count} confirmed payments were`} taken out of the chain by a reorganisation before ${count === 1 ? 'it was' : 'they were'} final` +
            `${latestInvoiceId ? ` (the latest: invoice ${latestInvoiceId})` : ''}: the money did not arrive. ` +
            'Do not ship for it; if you already did, contact the buyer. The invoice is payable again (or expired past its deadline); ' +
            'if the same transaction is mined again it pays the invoice again by itself. ' +
            'Find each in the feed (GET /changes, type payment_intent.reverted) or the invoice timeline. Each leaves this list 30 days after it was reverted.',
        }
      : undefined,
  automation_paused: ({ pausedAutomations: { count, since, reason } }) =>
    count > 0 && since
      ? reason === PAUSED_BY_OWNER
        ? pausedByOwner(count, since)
        : {
            since,
            count,
            hint:
              `${count === 1 ? '1 automation is' : `${count} automations are`} paused and creating no invoices` +
              `${reason ? ` (the first: ${reason}${PAUSE_CAUSES[reason] ? `, ${PAUSE_CAUSES[reason]}` : ''})` : ''}. ` +
              'GET /automations shows each with its pausedReason; remove the cause, then POST /automations/{id}/resume: ' +
              'it continues with the next occurrence still to come. Invoices already created stay payable.',
          }
      : undefined,
  webhook_deliveries_failed: ({ failedDeliveries: { count, since } }) =>
    count > 0 && since
      ? {
          since,
          count,
          hint:
            `${events(count)} ${count === 1 ? 'was' : 'were'} given up after the retry window without a 2xx from your receiver. ` +
            'Fix the receiver (GET /webhook shows the status and error of each), then send them again with POST /webhook/retry {"eventId"}; ' +
            'GET /changes has every event if you would rather catch up from the feed.',
        }
      : undefined,
  webhook_paused: ({ pausedEndpoint: paused }) =>
    paused && {
      since: paused.since,
      count: paused.backlog,
      hint:
        `Webhook delivery is paused (a secret rotation or PUT /webhook with enabled false); ${events(paused.backlog)} waiting for it ${paused.backlog === 1 ? 'is' : 'are'} kept. ` +
        'Update your receiver with the current signing secret (POST /webhook/test checks it), then resume with PUT /webhook {"enabled": true}: the backlog is delivered.',
    },
  overpayments_received: ({ overpayments: { count, since } }) =>
    count > 0 && since
      ? {
          since,
          count,
          hint:
            `${count === 1 ? '1 payment' : `${count} payments`} landed for ${count === 1 ? 'an invoice' : 'invoices'} already paid by another payment (or cancelled) in the last ${OVERPAYMENT_LISTED_MS / 86_400_000} days. ` +
            'The money is in your wallet; this service makes no refunds, so return it to the payer yourself. ' +
            'Find them in the feed (GET /changes, type payment_intent.overpaid) or the invoice timeline; GET /payment-intents/{id} shows the payer and transaction. ' +
            'Each leaves this list 30 days after it landed.',
        }
      : undefined,
  unmatched_transfers: ({ unmatchedTransfers: { count, since } }) =>
    count > 0 && since
      ? {
          since,
          count,
          hint:
            `${count === 1 ? '1 transfer' : `${count} transfers`} reached your wallet without paying an invoice by ${count === 1 ? 'itself' : 'themselves'} ` +
            '(several open invoices of the amount, none, another amount, or after the deadline). ' +
            'GET /received-transfers?status=unmatched lists them with the reason; pay the invoice each was meant for with ' +
            'POST /received-transfers/{id}/apply {"invoiceId"}, or put it aside with POST /received-transfers/{id}/dismiss.',
        }
      : undefined,
  low_credits: ({ lowCredits: low }) =>
    low && {
      since: low.since,
      hint:
        `${low.available} credits available (balance minus reserve), below ${low.threshold}: what ${LOW_CREDIT_INVOICES} invoices cost at the highest tariff with their success fee. ` +
        'Add credits before they run out: new invoices and renewals are then refused with 402 insufficient_credits. GET /billing shows the balance.',
    },
  verification_delayed: ({ delayedVerifications: { count, since } }) =>
    count > 0 && since
      ? {
          since,
          count,
          hint:
            `${count === 1 ? '1 payment' : `${count} payments`} submitted more than ${VERIFICATION_DELAY_MS / 60_000} minutes ago ${count === 1 ? 'is' : 'are'} still being verified. ` +
            'Buyers must not pay again: a late confirmation still completes the invoice. Follow them with GET /payment-intents/{id}; ' +
            "if this lasts, the service's connection to the network or its relayer may be down: tell the operator of this service.",
        }
      : undefined,
  webhook_deliveries_retrying: ({ retryingDeliveries: { count, since }, longestRetrySeconds }) =>
    count > 0 && since
      ? {
          since,
          count,
          hint:
            `${events(count)} failed at least once and ${count === 1 ? 'is' : 'are'} retried automatically with backoff` +
            `${longestRetrySeconds ? ` (up to ${durationWords(longestRetrySeconds)} apart)` : ''}. ` +
            'Check that your receiver answers 2xx within 8 seconds: GET /webhook shows the last status and error of each delivery.',
        }
      : undefined,
};

const PAUSED_BY_OWNER = 'paused_by_owner';

/** Nothing went wrong: the owner chose this. Listed so it is not forgotten, as a warning, never critical. */
function pausedByOwner(count: number, since: Date): Found {
  return {
    since,
    count,
    severity: 'warning',
    hint:
      `${count === 1 ? '1 automation is' : `${count} automations are`} paused by you and creating no invoices. ` +
      'Resume with POST /automations/{id}/resume when you want invoices again: it continues with the next occurrence still to come.',
  };
}

/**
 * The open issues, critical first, in ISSUE_KINDS order within a severity. Pure: the same facts always
 * give the same list.
 */
export function issuesFrom(facts: HealthFacts): Issue[] {
  const issues = ISSUE_KINDS.flatMap((kind): Issue[] => {
    const found = DETECTORS[kind](facts);
    if (!found) return [];
    return [
      {
        kind,
        severity: found.severity ?? SEVERITY[kind],
        since: found.since.toISOString(),
        hint: found.hint,
        ...(found.count !== undefined && { count: found.count }),
      },
    ];
  });
  // Stable: within a severity, the kinds keep their order.
  return issues.sort((a, b) => Number(a.severity !== 'critical') - Number(b.severity !== 'critical'));
}

function events(count: number): string {
  return count === 1 ? '1 webhook event' : `${count} webhook events`;
}
