import { html, type Html } from '../../html.js';
import { ids } from '../portal.ids.js';

/** The month picker and the print and CSV buttons: on screen only, never on the printed page. */
function controls(): Html {
  return html`<div class="no-print">
  <h2 id="statement-title">Statement</h2>
  <p class="muted">Invoices and credits of one calendar month, in UTC. The current month counts up to now.</p>
  <div class="month-picker" role="group" aria-label="Month">
    <button type="button" id="${ids.statementPrev}" class="secondary small">← Previous</button>
    <label for="${ids.statementMonth}" class="visually-hidden">Month</label>
    <input type="month" id="${ids.statementMonth}" name="month" required>
    <button type="button" id="${ids.statementNext}" class="secondary small">Next →</button>
  </div>
  <div class="actions">
    <button type="button" id="${ids.statementPrint}" class="secondary" disabled>Print</button>
    <button type="button" id="${ids.statementCsv}" class="secondary" disabled>Download CSV</button>
  </div>
  <p id="${ids.statementStatus}" class="status-line" aria-live="polite"></p>
</div>`;
}

/** The statement itself, as it prints: who, which month, the figures, when it was made. */
function sheet(): Html {
  return html`<article id="${ids.statementSheet}" class="statement-sheet" aria-labelledby="${ids.statementHeading}" hidden>
  <header>
    <p class="statement-kicker">Monthly statement</p>
    <h3 id="${ids.statementHeading}"></h3>
    <p id="${ids.statementPeriod}"></p>
    <p id="${ids.statementPartial}" class="callout" hidden>This month is not over yet: the figures are those up to the time this statement was made.</p>
  </header>
  <h4>Invoices</h4>
  <table class="statement-table"><tbody id="${ids.statementInvoices}"></tbody></table>
  <h4>Paid volume</h4>
  <table class="statement-table stack-table">
    <thead><tr><th>Currency</th><th>Network</th><th class="num">Invoices</th><th class="num">Amount</th></tr></thead>
    <tbody id="${ids.statementVolume}"></tbody>
  </table>
  <h4>Credits</h4>
  <table class="statement-table"><tbody id="${ids.statementCredits}"></tbody></table>
  <footer class="statement-footer">
    <p>Workspace <code id="${ids.statementWorkspaceId}"></code>. Generated <span id="${ids.statementGenerated}"></span>.</p>
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
