import { EXPIRES_IN_CREDITS, INVOICE_STATUSES } from '../../../modules/invoices/index.js';
import { html, type Html } from '../../html.js';
import { ids } from '../portal.ids.js';

const WINDOWS: readonly [seconds: keyof typeof EXPIRES_IN_CREDITS, label: string][] = [
  [3600, '1 hour'],
  [86400, '1 day'],
  [432000, '5 days'],
];

/**
 * The payment-window choices with what each costs, for "create" and "renew"; `data-credits` lets the
 * script ask before it spends them.
 */
export function windowOptions(): Html {
  return html`${WINDOWS.map(([seconds, label]) => {
    const credits = EXPIRES_IN_CREDITS[seconds];
    return html`<option value="${seconds}" data-label="${label}" data-credits="${credits}">${label} (${credits} credit${credits === 1 ? '' : 's'})</option>`;
  })}`;
}

function createCard(networks: readonly string[]): Html {
  return html`<section id="invoice-create" class="card" aria-labelledby="invoice-create-title">
  <h2 id="invoice-create-title">New invoice</h2>
  <form id="${ids.invoiceForm}" novalidate>
    <div class="row">
      <div><label for="invoice-amount">Amount in USDC</label>
      <input id="invoice-amount" name="amount" required inputmode="decimal" autocomplete="off" placeholder="12,50" aria-describedby="invoice-amount-hint">
      <p id="invoice-amount-hint" class="hint">USDC, not your local currency. A comma or a dot: 12,50 or 12.50.</p></div>
      <div><label for="invoice-expires">Payment window</label>
      <select id="invoice-expires" name="expiresIn">${windowOptions()}</select></div>
    </div>
    <label for="invoice-external-id">Order reference <span class="muted">(optional, your own; not a secret)</span></label>
    <input id="invoice-external-id" name="externalId" autocomplete="off" maxlength="128">
    <label for="invoice-description">Description <span class="muted">(optional, shown to the buyer)</span></label>
    <textarea id="invoice-description" name="description" rows="2" maxlength="1000" aria-describedby="invoice-description-hint"></textarea>
    <p id="invoice-description-hint" class="hint">What the buyer pays for, on the checkout page: not a secret. Plain text, at most 1,000 bytes (an accented letter counts 2).</p>
    <details>
      <summary>More options</summary>
      <label for="invoice-network">Network</label>
      <select id="invoice-network" name="network"><option value="">The buyer chooses</option>${networks.map((n) => html`<option value="${n}">${n}</option>`)}</select>
      <label for="invoice-success-url">Success URL <span class="muted">(on a checkout return origin, see Settings)</span></label>
      <input id="invoice-success-url" name="successUrl" type="url" autocomplete="off" placeholder="https://shop.example.com/thanks">
      <label for="invoice-cancel-url">Cancel URL</label>
      <input id="invoice-cancel-url" name="cancelUrl" type="url" autocomplete="off" placeholder="https://shop.example.com/cart">
    </details>
    <div class="actions"><button type="submit" class="primary">Create invoice</button></div>
  </form>
</section>`;
}

function listCard(): Html {
  return html`<section id="invoice-list" class="card" aria-labelledby="invoice-list-title">
  <h2 id="invoice-list-title">Invoices</h2>
  <form id="${ids.invoiceSearch}" class="search" role="search">
    <label for="invoice-query" class="visually-hidden">Find an invoice</label>
    <input id="invoice-query" name="q" type="search" autocomplete="off" placeholder="Number, order reference, link or transaction hash">
    <button type="submit" class="secondary">Search</button>
    <button type="button" id="${ids.invoiceSearchClear}" class="secondary" hidden>Show all</button>
  </form>
  <fieldset class="filters" id="${ids.invoiceFilters}">
    <legend class="visually-hidden">Status</legend>
    <label class="chip-radio"><input type="radio" name="status" value="" checked><span>All</span></label>
    ${INVOICE_STATUSES.map((s) => html`<label class="chip-radio"><input type="radio" name="status" value="${s}"><span>${s}</span></label>`)}
  </fieldset>
  <p id="${ids.invoiceListStatus}" class="status-line" aria-live="polite"></p>
  <div id="${ids.invoiceTable}" class="table-wrap" hidden>
    <table class="stack-table">
      <thead><tr><th>Number</th><th>Amount</th><th>Status</th><th>Order reference</th><th>Created</th><th>Deadline</th></tr></thead>
      <tbody id="${ids.invoiceRows}"></tbody>
    </table>
  </div>
  <div class="actions">
    <button type="button" id="${ids.invoiceMore}" class="secondary" hidden>Show older invoices</button>
    <button type="button" id="${ids.invoiceExport}" class="secondary">Export CSV</button>
    <span id="${ids.invoiceExportStatus}" class="status-line" aria-live="polite"></span>
  </div>
</section>`;
}

function detailCard(): Html {
  return html`<section id="${ids.invoiceDetail}" class="card" aria-labelledby="${ids.invoiceNumber}">
  <p><a href="#invoices">← All invoices</a></p>
  <h2><span id="${ids.invoiceNumber}"></span> <span id="${ids.invoiceStatus}" class="badge"></span></h2>
  <dl id="${ids.invoiceFacts}" class="facts"></dl>
  <h3>Links</h3>
  <dl class="facts">
    <dt>Checkout link <small class="muted">send it to the buyer</small></dt>
    <dd><code id="${ids.invoiceCheckoutUrl}"></code> <button type="button" class="secondary small" data-copy-from="${ids.invoiceCheckoutUrl}">Copy</button> <a id="${ids.invoiceCheckoutOpen}" target="_blank" rel="noopener">Open</a></dd>
    <dt>Payment URL <small class="muted">for x402 clients</small></dt>
    <dd><code id="${ids.invoiceUrl}"></code> <button type="button" class="secondary small" data-copy-from="${ids.invoiceUrl}">Copy</button></dd>
  </dl>
  <div id="${ids.invoiceActions}" class="actions">
    <label for="${ids.renewExpires}" class="inline">New payment window</label>
    <select id="${ids.renewExpires}" class="auto">${windowOptions()}</select>
    <button type="button" id="${ids.renewInvoice}" class="secondary">Renew the link</button>
    <button type="button" id="${ids.cancelInvoice}" class="danger">Cancel the invoice</button>
  </div>
  <section id="${ids.invoiceReceipt}" hidden>
    <h3>Receipt</h3>
    <dl id="${ids.receiptFacts}" class="facts"></dl>
  </section>
  <h3>Timeline</h3>
  <ol id="${ids.invoiceTimeline}" class="timeline"></ol>
  <p id="${ids.invoiceTimelineNote}" class="muted" hidden>Some records are not shown: older ones, or ones retention removed (webhook attempts after 30 days, records older than the invoice retention).</p>
</section>`;
}

export function invoicesPanel(networks: readonly string[]): Html {
  return html`<div id="panel-invoices" data-panel="invoices" hidden>${listCard()}${createCard(networks)}</div>
<div id="panel-invoice" data-panel="invoice" hidden>${detailCard()}</div>`;
}
