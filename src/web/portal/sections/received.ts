import { RECEIVED_TRANSFER_STATUSES } from '../../../modules/received-transfers/index.js';
import { html, type Html } from '../../html.js';
import { ids } from '../portal.ids.js';

/** The filter's words for each status; a Record, so a new status fails to compile until named. */
const STATUS_LABELS: Readonly<Record<(typeof RECEIVED_TRANSFER_STATUSES)[number], string>> = {
  unmatched: 'Unmatched',
  applied: 'Applied',
  dismissed: 'Dismissed',
};

function listCard(): Html {
  return html`<section id="received-list" class="card" aria-labelledby="received-list-title">
  <h2 id="received-list-title">Received transfers</h2>
  <p class="muted">USDC that reached your wallet without paying an invoice by itself: several open invoices had its amount, none did, or it came too late. Apply each to the invoice it was meant for, or dismiss it once you have settled it with the sender.</p>
  <fieldset class="filters" id="${ids.receivedFilters}">
    <legend class="visually-hidden">Status</legend>
    ${RECEIVED_TRANSFER_STATUSES.map((s, i) => html`<label class="chip-radio"><input type="radio" name="status" value="${s}"${i === 0 ? ' checked' : ''}><span>${STATUS_LABELS[s]}</span></label>`)}
    <label class="chip-radio"><input type="radio" name="status" value=""><span>All</span></label>
  </fieldset>
  <p id="${ids.receivedListStatus}" class="status-line" aria-live="polite"></p>
  <div id="${ids.receivedTable}" class="table-wrap" hidden>
    <table class="stack-table">
      <thead><tr><th>Amount</th><th>From</th><th>Received</th><th>Why it paid nothing</th><th>Transaction</th><th>Status</th></tr></thead>
      <tbody id="${ids.receivedRows}"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="${ids.receivedMore}" class="secondary" hidden>Load more</button></div>
</section>`;
}

/**
 * The apply and dismiss forms of one transfer. The script moves this block under the row whose button
 * was pressed and shows the form asked for, so it opens where the person is looking.
 */
function resolveForms(): Html {
  return html`<div id="${ids.receivedResolve}" class="resolve" role="group" aria-labelledby="${ids.receivedResolveTitle}" hidden>
  <h3 id="${ids.receivedResolveTitle}"></h3>
  <form id="${ids.receivedApplyForm}" novalidate hidden>
    <label for="${ids.receivedInvoice}">Invoice it pays</label>
    <select id="${ids.receivedInvoice}" name="invoiceId" aria-describedby="${ids.receivedInvoiceHint}"></select>
    <p id="${ids.receivedInvoiceHint}" class="hint"></p>
    <div class="actions">
      <button type="submit" class="primary">Apply</button>
      <button type="button" class="secondary" data-resolve-cancel>Cancel</button>
    </div>
  </form>
  <form id="${ids.receivedDismissForm}" novalidate hidden>
    <label for="${ids.receivedNote}">Note <span class="muted">(optional, for your records: e.g. refunded to the sender)</span></label>
    <textarea id="${ids.receivedNote}" name="note" rows="2" maxlength="500"></textarea>
    <div class="actions">
      <button type="submit" class="danger">Dismiss</button>
      <button type="button" class="secondary" data-resolve-cancel>Cancel</button>
    </div>
  </form>
</div>`;
}

/** The "Received" tab: transfers that paid nothing by themselves. Filled by client/received.ts. */
export function receivedPanel(): Html {
  return html`<div id="panel-received" data-panel="received" hidden>${listCard()}${resolveForms()}</div>`;
}
