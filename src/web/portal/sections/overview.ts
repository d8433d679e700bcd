import { DASHBOARD_DAYS } from '../../../modules/dashboard/index.js';
import { html, type Html } from '../../html.js';
import { GRANT_ONCE_NOTE } from './billing.js';
import { ids } from '../portal.ids.js';

/** Health issues, above the tabs so that they are seen whatever tab is open. Filled by client/overview.ts. */
export function issuesBanner(): Html {
  return html`<section id="${ids.issues}" class="issues" aria-labelledby="issues-title" hidden>
  <h2 id="issues-title">Needs your attention</h2>
  <ul id="${ids.issuesList}" class="issue-list"></ul>
</section>`;
}

function stat(id: string, label: string): Html {
  return html`<div class="stat"><span class="stat-label">${label}</span><span id="${id}" class="stat-value">—</span></div>`;
}

export function overviewPanel(): Html {
  return html`<div id="panel-overview" data-panel="overview" hidden>
<section id="${ids.workspace}" class="card">
  <div class="heading-row"><h2 id="${ids.workspaceTitle}"></h2><a id="overview-create-invoice" class="button primary" href="#invoices/new">Create invoice</a></div>
  <p id="${ids.workspaceDescription}" class="muted"></p>
  <dl class="facts">
    <dt>Receiving wallet</dt><dd><code id="${ids.workspaceWallet}"></code></dd>
  </dl>
  <details>
    <summary>For your developers</summary>
    <dl class="facts">
      <dt>Workspace id</dt><dd><code id="${ids.workspaceId}"></code> <button type="button" class="secondary small" data-copy-from="${ids.workspaceId}">Copy</button></dd>
      <dt>API base URL</dt><dd><code id="${ids.workspaceApiBase}"></code> <button type="button" class="secondary small" data-copy-from="${ids.workspaceApiBase}">Copy</button></dd>
    </dl>
    <p class="muted">API keys and the webhook endpoint are in the <a href="#api">API tab</a>; the reference is at <a href="/docs">/docs</a>.</p>
  </details>
</section>
<section id="credits" class="card" aria-labelledby="billing-title">
  <h2 id="billing-title">Credits</h2>
  <div class="stats">
    ${stat(ids.billingAvailable, 'Available')}
    ${stat(ids.billingBalance, 'Balance')}
    ${stat(ids.billingReserved, 'Reserved')}
  </div>
  <details>
    <summary>How credits work</summary>
    <p class="muted">Available credits are the balance less what open invoices hold in reserve. An invoice costs
    <span id="${ids.billingTariff}">…</span> by its payment window, and <span id="${ids.billingFee}">…</span> is held while it is open:
    taken when it is paid, given back when it expires or is cancelled. Largest invoice: <span id="${ids.billingMax}" class="nowrap">…</span>.</p>
  </details>
  <p id="${ids.billingGrantNote}" hidden>${GRANT_ONCE_NOTE} <a href="#billing">Buy credits</a>.</p>
</section>
<section id="activity" class="card" aria-labelledby="activity-title">
  <h2 id="activity-title">Last ${DASHBOARD_DAYS} days</h2>
  <p id="${ids.activitySummary}" class="muted"></p>
  <figure class="chart">
    <figcaption>Paid volume per day, USDC (UTC days)</figcaption>
    <div id="${ids.chartVolume}"></div>
  </figure>
  <figure class="chart">
    <figcaption>Webhook deliveries acknowledged per day (share of attempts)</figcaption>
    <div id="${ids.chartWebhooks}"></div>
  </figure>
</section>
</div>`;
}
