// The overview panel (credits, the 30-day chart) and the health issues shown above every panel.
import { api, workspacePath } from './api.js';
import type { Billing, Dashboard, Issue, Issues, Workspace } from './api-types.js';
import { barChart, niceMax } from './chart.js';
import { byId, el, formatAmount, show, timeEl } from './dom.js';
import { issueWords, portalHints, type Hints } from './issue-words.js';
import { ids } from '../portal.ids.js';

const WINDOW_LABELS: Readonly<Record<string, string>> = { 3600: '1 hour', 86400: '1 day', 432000: '5 days' };
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const shortDate = (date: string) => date.slice(5).replace('-', '/');

function issueItem(issue: Issue, hints: Hints): HTMLElement {
  const { title, href, action, hint } = issueWords(issue, hints);
  return el(
    'li',
    { class: `issue ${issue.severity}` },
    el('strong', {}, title, issue.count !== undefined ? ` (${issue.count})` : ''),
    el('span', { class: 'muted' }, ' since ', timeEl(issue.since)),
    el('p', {}, hint, ' ', el('a', { href }, action)),
  );
}

function renderBilling(billing: Billing): void {
  byId(ids.billingAvailable).textContent = String(billing.availableCredits);
  byId(ids.billingBalance).textContent = String(billing.creditBalance);
  byId(ids.billingReserved).textContent = String(billing.reservedCredits);
  byId(ids.billingTariff).textContent = Object.entries(billing.tariff)
    .map(([seconds, credits]) => `${plural(credits, 'credit')} for ${WINDOW_LABELS[seconds] ?? `${seconds} s`}`)
    .join(', ');
  byId(ids.billingFee).textContent = plural(billing.successFeeCredits, 'credit');
  byId(ids.billingMax).textContent = `${formatAmount(billing.maxInvoiceAmount)} USDC`;
  // A later workspace of a wallet starts with nothing: say why rather than leave a bare 0.
  show(byId(ids.billingGrantNote), billing.creditBalance === 0 && !billing.firstWorkspaceOfWallet);
}

function renderActivity({ days, totals }: Dashboard): void {
  // Drawn at the width the card gives it (600 while hidden), so that labels keep the page's text size.
  const measured = byId(ids.chartVolume).clientWidth;
  const width = measured > 0 ? Math.max(measured, 280) : 600;
  const volumes = days.map((day) => Number(day.paidAmount));
  const volumeMax = niceMax(Math.max(...volumes));
  byId(ids.chartVolume).replaceChildren(
    barChart({
      width,
      max: volumeMax,
      formatTick: (v) => (volumeMax >= 10 ? String(Math.round(v)) : v.toFixed(1)),
      summary: `Paid volume per day over ${days.length} days: ${formatAmount(totals.paidAmount)} USDC in total.`,
      bars: days.map((day, i) => ({
        value: volumes[i] ?? 0,
        label: shortDate(day.date),
        title: `${day.date}: ${formatAmount(day.paidAmount)} USDC, ${plural(day.paidInvoices, 'invoice')} paid`,
      })),
    }),
  );
  const rate =
    totals.webhookAttempts === 0 ? undefined : Math.round((100 * totals.webhookSucceeded) / totals.webhookAttempts);
  // Without a single attempt a share chart would read as 0 %: say so instead.
  if (rate === undefined) byId(ids.chartWebhooks).replaceChildren(el('p', { class: 'muted' }, 'No deliveries yet'));
  else
    byId(ids.chartWebhooks).replaceChildren(
      barChart({
        width,
        max: 1,
        formatTick: (v) => `${Math.round(v * 100)}%`,
        summary:
          rate === undefined
            ? 'No webhook attempts in this period.'
            : `Webhook success rate per day; ${rate}% of attempts acknowledged overall.`,
        bars: days.map((day) => {
          const share = day.webhookAttempts === 0 ? null : day.webhookSucceeded / day.webhookAttempts;
          return {
            value: share,
            label: shortDate(day.date),
            tone: share === null ? undefined : share >= 0.95 ? 'good' : share >= 0.5 ? 'warn' : 'bad',
            title:
              share === null
                ? `${day.date}: no webhook attempts`
                : `${day.date}: ${day.webhookSucceeded} of ${plural(day.webhookAttempts, 'attempt')} acknowledged (${Math.round(share * 100)}%)`,
          };
        }),
      }),
    );
  byId(ids.activitySummary).textContent =
    `${formatAmount(totals.paidAmount)} USDC paid in ${plural(totals.paidInvoices, 'invoice')}. ` +
    (rate === undefined
      ? 'No webhook attempts.'
      : `Webhooks: ${totals.webhookSucceeded} of ${plural(totals.webhookAttempts, 'attempt')} acknowledged (${rate}%).`);
}

/** `retrySchedule`: the service's webhook retry delays in seconds, for the banner's words. */
export function createOverviewView({ retrySchedule }: { readonly retrySchedule: readonly number[] }): {
  refreshIssues(workspace: Workspace | undefined): Promise<void>;
  show(workspace: Workspace): Promise<void>;
} {
  const hints = portalHints(retrySchedule);
  let current: Workspace | undefined;
  let issuesFor: Workspace | undefined;
  let activity: Dashboard | undefined;
  let drawnWidth = 0;

  // The charts are drawn at their real width: draw them again when it changes (a phone turned sideways).
  window.addEventListener('resize', () => {
    const width = byId(ids.chartVolume).clientWidth;
    if (activity && width > 0 && width !== drawnWidth) {
      drawnWidth = width;
      renderActivity(activity);
    }
  });

  return {
    /** Reloads the issues banner; safe to call after any change that may raise or clear one. */
    async refreshIssues(workspace) {
      issuesFor = workspace;
      if (!workspace) return;
      const { issues } = await api.get<Issues>(workspacePath(workspace.id, 'issues'));
      if (issuesFor !== workspace) return;
      byId(ids.issuesList).replaceChildren(...issues.map((issue) => issueItem(issue, hints)));
      // Red only when something has stopped; warnings alone get the calmer colour.
      byId(ids.issues).classList.toggle('warning-only', !issues.some((issue) => issue.severity === 'critical'));
      show(byId(ids.issues), issues.length > 0);
    },
    async show(workspace) {
      current = workspace;
      const [billing, dashboard] = await Promise.all([
        api.get<Billing>(workspacePath(workspace.id, 'billing')),
        api.get<Dashboard>(workspacePath(workspace.id, 'dashboard')),
      ]);
      if (current !== workspace) return;
      renderBilling(billing);
      activity = dashboard;
      drawnWidth = byId(ids.chartVolume).clientWidth;
      renderActivity(dashboard);
    },
  };
}
