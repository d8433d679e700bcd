import { html, type Html } from '../html.js';

/** Said wherever a workspace's zero balance needs explaining: later workspaces of a wallet get no grant. */
export const GRANT_ONCE_NOTE =
  "New-workspace credits are granted once per wallet, and this wallet's first workspace received them.";

/**
 * One purchase: its facts, a pay button per browser wallet while it is open, its latest payment, and
 * what those paying another way need. Filled and followed by client/purchase.ts.
 */
function purchaseDetail(): Html {
  return html`<section id="purchase-detail" class="callout" aria-labelledby="purchase-detail-title" hidden>
    <h3 id="purchase-detail-title">Purchase <span id="purchase-status" class="badge"></span></h3>
    <p id="purchase-state" class="status-line" aria-live="polite"></p>
    <dl id="purchase-facts" class="facts"></dl>
    <div id="purchase-pay" hidden>
      <p>Pay from a browser wallet: it signs a USDC transfer of exactly the price to the operator wallet, and this service submits it and pays the gas.</p>
      <div id="purchase-wallets" class="actions" role="group" aria-label="Wallets to pay with"></div>
      <p id="purchase-no-wallet" class="muted" hidden>No browser wallet found in this browser: pay another way below.</p>
      <p id="purchase-pay-step" class="status-line" aria-live="polite"></p>
      <p id="purchase-pay-error" class="form-error" role="alert" hidden></p>
    </div>
    <section id="purchase-payment" aria-labelledby="purchase-payment-title" hidden>
      <h4 id="purchase-payment-title">Latest payment</h4>
      <dl id="purchase-payment-facts" class="facts"></dl>
    </section>
    <section id="purchase-other-ways" aria-labelledby="purchase-other-title" hidden>
      <h4 id="purchase-other-title">Other ways to pay</h4>
      <dl id="purchase-links" class="facts"></dl>
      <form id="purchase-tx-form" novalidate>
        <label for="purchase-tx-hash">Sent a plain USDC transfer of exactly the price? Its transaction hash</label>
        <div class="hash-row">
          <input id="purchase-tx-hash" name="txHash" autocomplete="off" spellcheck="false" placeholder="0x…">
          <select id="purchase-tx-network" name="network" class="auto" aria-label="Network"></select>
        </div>
        <div class="actions"><button type="submit" class="secondary">Submit transaction</button></div>
      </form>
    </section>
  </section>`;
}

function packagesCard(): Html {
  return html`<section id="credit-packages" class="card" aria-labelledby="packages-title">
  <h2 id="packages-title">Buy credits</h2>
  <p>Balance: <strong id="billing-tab-balance">—</strong> credits, <span id="billing-tab-available">—</span> available.</p>
  <p id="billing-tab-grant-note" class="callout" hidden>${GRANT_ONCE_NOTE}</p>
  <p class="muted">A package is paid in USDC to the service operator's wallet, not to this workspace's; its credits are added once it is paid. Each purchase can be paid for an hour.</p>
  <p id="purchases-unavailable" class="callout warn" role="status" hidden></p>
  <ul id="package-list" class="packages"></ul>
  ${purchaseDetail()}
</section>`;
}

function purchasesCard(): Html {
  return html`<section id="purchases" class="card" aria-labelledby="purchases-title">
  <h2 id="purchases-title">Purchases</h2>
  <p id="purchase-list-status" class="status-line" aria-live="polite"></p>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>Created</th><th>Package</th><th>Credits</th><th>Price</th><th>Status</th><th>Pay by</th><th><span class="visually-hidden">Details</span></th></tr></thead>
      <tbody id="purchase-rows"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="purchase-more" class="secondary" hidden>Show older purchases</button></div>
</section>`;
}

function ledgerCard(): Html {
  return html`<section id="ledger" class="card" aria-labelledby="ledger-title">
  <h2 id="ledger-title">Ledger</h2>
  <p class="muted">Every movement of the credits, newest first. The balance is the sum of the changes; reserved credits are held for open invoices' success fees.</p>
  <p id="ledger-status" class="status-line" aria-live="polite"></p>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>#</th><th>When</th><th>What</th><th>Change</th><th>Reserve</th><th>Balance after</th></tr></thead>
      <tbody id="ledger-rows"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="ledger-more" class="secondary" hidden>Show older entries</button></div>
</section>`;
}

/** The billing tab: the packages on offer, the purchases made, and the ledger. Filled by client/billing.ts. */
export function billingPanel(): Html {
  return html`<div id="panel-billing" data-panel="billing" hidden>${packagesCard()}${purchasesCard()}${ledgerCard()}</div>`;
}
