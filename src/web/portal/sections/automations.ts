import { html, type Html } from '../../html.js';
import { windowOptions } from './invoices.js';
import { ids } from '../portal.ids.js';

const PERIODS = [
  ['month', 'months'],
  ['week', 'weeks'],
  ['day', 'days'],
  ['hour', 'hours'],
] as const;

function listCard(): Html {
  return html`<section id="automation-list" class="card" aria-labelledby="automation-list-title">
  <h2 id="automation-list-title">Automations</h2>
  <p class="muted">An automation creates an invoice on a schedule — a monthly retainer, a weekly subscription — each numbered and charged like any invoice, with an <code>invoice.scheduled</code> webhook. Pausing one never stops the payment of invoices it already created.</p>
  <p id="${ids.automationListStatus}" class="status-line" aria-live="polite"></p>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>Name</th><th>Amount</th><th>Schedule</th><th>Status</th><th>Next invoice</th><th>Invoices</th></tr></thead>
      <tbody id="${ids.automationRows}"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="${ids.automationMore}" class="secondary" hidden>Show older automations</button></div>
</section>`;
}

function createCard(networks: readonly string[]): Html {
  return html`<section id="automation-create" class="card" aria-labelledby="automation-create-title">
  <h2 id="automation-create-title">New automation</h2>
  <form id="${ids.automationForm}" novalidate>
    <label for="automation-name">Name <span class="muted">(for you; buyers never see it)</span></label>
    <input id="automation-name" name="name" required maxlength="100" autocomplete="off" placeholder="e.g. Monthly retainer, Acme">
    <div class="row">
      <div><label for="automation-amount">Amount of each invoice, USDC</label>
      <input id="automation-amount" name="amount" required inputmode="decimal" autocomplete="off" placeholder="250,00"></div>
      <div><label for="automation-expires">Payment window</label>
      <select id="automation-expires" name="expiresIn">${windowOptions()}</select></div>
    </div>
    <fieldset class="schedule">
      <legend>Schedule</legend>
      <div class="row">
        <div><label for="automation-interval">Every</label>
        <input id="automation-interval" name="interval" type="number" min="1" step="1" value="1" required inputmode="numeric"></div>
        <div><label for="automation-every"><span class="visually-hidden">Period</span>&nbsp;</label>
        <select id="automation-every" name="every">${PERIODS.map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select></div>
      </div>
      <label for="automation-start">First invoice <span class="muted">(your local time)</span></label>
      <input id="automation-start" name="startAt" type="datetime-local" step="1" required aria-describedby="automation-start-hint">
      <p id="automation-start-hint" class="hint">Schedules run in UTC, so a daily invoice keeps its UTC time all year. A monthly one on the 29th–31st falls on the last day of shorter months.</p>
    </fieldset>
    <section class="preview" aria-labelledby="automation-preview-title">
      <h3 id="automation-preview-title">Next five invoices</h3>
      <p id="${ids.automationPreviewStatus}" class="status-line" aria-live="polite"></p>
      <ol id="${ids.automationPreview}" class="dates"></ol>
    </section>
    <label for="automation-external-id">Each invoice's order reference <span class="muted">(optional; <code>{n}</code> is the occurrence number, <code>{date}</code> its UTC date)</span></label>
    <input id="automation-external-id" name="externalId" autocomplete="off" maxlength="128" placeholder="retainer-{date}">
    <label for="automation-description">Each invoice's description <span class="muted">(optional, shown to the buyer)</span></label>
    <textarea id="automation-description" name="description" rows="2" maxlength="1000" aria-describedby="automation-description-hint"></textarea>
    <p id="automation-description-hint" class="hint">What the buyer pays for, on the checkout page: not a secret. Plain text, at most 1,000 bytes.</p>
    <details>
      <summary>More options</summary>
      <div class="row">
        <div><label for="automation-end">Stop before <span class="muted">(optional)</span></label>
        <input id="automation-end" name="endAt" type="datetime-local" step="1"></div>
        <div><label for="automation-max">At most this many invoices <span class="muted">(optional)</span></label>
        <input id="automation-max" name="maxOccurrences" type="number" min="1" step="1" inputmode="numeric"></div>
      </div>
      <label for="automation-network">Network</label>
      <select id="automation-network" name="network"><option value="">The buyer chooses</option>${networks.map((n) => html`<option value="${n}">${n}</option>`)}</select>
      <label for="automation-success-url">Success URL <span class="muted">(on a checkout return origin, see Settings)</span></label>
      <input id="automation-success-url" name="successUrl" type="url" autocomplete="off" placeholder="https://shop.example.com/thanks">
      <label for="automation-cancel-url">Cancel URL</label>
      <input id="automation-cancel-url" name="cancelUrl" type="url" autocomplete="off" placeholder="https://shop.example.com/cart">
    </details>
    <div class="actions"><button type="submit" class="primary">Create automation</button></div>
  </form>
</section>`;
}

function detailCard(): Html {
  return html`<section id="${ids.automationDetail}" class="card" aria-labelledby="${ids.automationNameHeading}">
  <p><a href="#automations">← All automations</a></p>
  <h2><span id="${ids.automationNameHeading}"></span> <span id="${ids.automationStatus}" class="badge"></span></h2>
  <p id="${ids.automationPausedReason}" class="callout warn" role="status" hidden></p>
  <dl id="${ids.automationFacts}" class="facts"></dl>
  <div id="${ids.automationActions}" class="actions">
    <button type="button" id="${ids.automationPause}" class="secondary">Pause</button>
    <button type="button" id="${ids.automationResume}" class="primary">Resume</button>
    <button type="button" id="${ids.automationEndNow}" class="danger">End for good</button>
  </div>
  <h3>Next invoices</h3>
  <ol id="${ids.automationUpcoming}" class="dates"></ol>
  <p id="${ids.automationUpcomingNone}" class="muted" hidden>None: the schedule has run its course.</p>
  <h3>Its invoices</h3>
  <p id="${ids.automationInvoicesStatus}" class="status-line" aria-live="polite"></p>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>#</th><th>Number</th><th>Amount</th><th>Status</th><th>Order reference</th><th>Created</th></tr></thead>
      <tbody id="${ids.automationInvoiceRows}"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="${ids.automationInvoicesMore}" class="secondary" hidden>Show older invoices</button></div>
</section>`;
}

/** The automations tab (the list and the create form) and one automation's page. Filled by client/automations.ts. */
export function automationsPanel(networks: readonly string[]): Html {
  return html`<div id="panel-automations" data-panel="automations" hidden>${listCard()}${createCard(networks)}</div>
<div id="panel-automation" data-panel="automation" hidden>${detailCard()}</div>`;
}
