import { html, type Html } from '../html.js';

/** The month picker and the print and CSV buttons: on screen only, never on the printed page. */
function controls(): Html {
  return html`<div class="no-print">
  <h2 id="statement-title">Statement</h2>
  <p class="muted">Invoices and credits of one calendar month, in UTC. The current month counts up to now.</p>
  <div class="month-picker" role="group" aria-label="Month">
    <button type="button" id="statement-prev" class="secondary small">← Previous</button>
    <label for="statement-month" class="visually-hidden">Month</label>
    <input type="month" id="statement-month" name="month" required>
    <button type="button" id="statement-next" class="secondary small">Next →</button>
  </div>
  <div class="actions">
    <button type="button" id="statement-print" class="secondary" disabled>Print</button>
    <button type="button" id="statement-csv" class="secondary" disabled>Download CSV</button>
  </div>
  <p id="statement-status" class="status-line" aria-live="polite"></p>
</div>`;
}

/** The statement itself, as it prints: who, which month, the figures, when it was made. */
function sheet(): Html {
  return html`<article id="statement-sheet" class="statement-sheet" aria-labelledby="statement-heading" hidden>
  <header>
    <p class="statement-kicker">Monthly statement</p>
    <h3 id="statement-heading"></h3>
    <p id="statement-period"></p>
    <p id="statement-partial" class="callout" hidden>This month is not over yet: the figures are those up to the time this statement was made.</p>
  </header>
  <h4>Invoices</h4>
  <table class="statement-table"><tbody id="statement-invoices"></tbody></table>
  <h4>Paid volume</h4>
  <table class="statement-table stack-table">
    <thead><tr><th>Currency</th><th>Network</th><th class="num">Invoices</th><th class="num">Amount</th></tr></thead>
    <tbody id="statement-volume"></tbody>
  </table>
  <h4>Credits</h4>
  <table class="statement-table"><tbody id="statement-credits"></tbody></table>
  <footer class="statement-footer">
    <p>Workspace <code id="statement-workspace-id"></code>. Generated <span id="statement-generated"></span>.</p>
  </footer>
</article>`;
}

/** The Statement tab: one month of a workspace, to read, print or download. Filled by client/statement.ts. */
export function statementPanel(): Html {
  return html`<div id="panel-statement" data-panel="statement" hidden>
<section id="statement" class="card" aria-labelledby="statement-title">
${controls()}
${sheet()}
</section>
</div>`;
}
