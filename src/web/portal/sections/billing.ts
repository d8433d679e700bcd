import { html, type Html } from '../../html.js';
import { ids } from '../portal.ids.js';

/** Said wherever a workspace's zero balance needs explaining: later workspaces of a wallet get no grant. */
export const GRANT_ONCE_NOTE =
  "New-workspace credits are granted once per wallet, and this wallet's first workspace received them.";

/**
 * One purchase: its facts, a pay button per browser wallet while it is open, its latest payment, and
 * what those paying another way need. Filled and followed by client/purchase.ts.
 */
function purchaseDetail(): Html {
  return html`<section id="${ids.purchaseDetail}" class="callout" aria-labelledby="purchase-detail-title" hidden>
    <h3 id="purchase-detail-title">Purchase <span id="${ids.purchaseStatus}" class="badge"></span></h3>
    <p id="${ids.purchaseState}" class="status-line" aria-live="polite"></p>
    <dl id="${ids.purchaseFacts}" class="facts"></dl>
    <div id="${ids.purchasePay}" hidden>
      <p>Pay from a browser wallet: it signs a USDC transfer of exactly the price to the operator wallet, and this service submits it and pays the gas.</p>
      <div id="${ids.purchaseWallets}" class="actions" role="group" aria-label="Wallets to pay with"></div>
      <p id="${ids.purchaseNoWallet}" class="muted" hidden>No browser wallet found in this browser: pay another way below.</p>
      <p id="${ids.purchasePayStep}" class="status-line" aria-live="polite"></p>
      <p id="${ids.purchasePayError}" class="form-error" role="alert" hidden></p>
    </div>
    <section id="${ids.purchasePayment}" aria-labelledby="purchase-payment-title" hidden>
      <h4 id="purchase-payment-title">Latest payment</h4>
      <dl id="${ids.purchasePaymentFacts}" class="facts"></dl>
    </section>
    <section id="${ids.purchaseOtherWays}" aria-labelledby="purchase-other-title" hidden>
      <h4 id="purchase-other-title">Other ways to pay</h4>
      <dl id="${ids.purchaseLinks}" class="facts"></dl>
      <form id="${ids.purchaseTxForm}" novalidate>
        <label for="purchase-tx-hash">Sent a plain USDC transfer of exactly the price? Its transaction hash</label>
        <div class="hash-row">
          <input id="purchase-tx-hash" name="txHash" autocomplete="off" spellcheck="false" placeholder="0x…">
          <select id="${ids.purchaseTxNetwork}" name="network" class="auto" aria-label="Network"></select>
        </div>
        <div class="actions"><button type="submit" class="secondary">Submit transaction</button></div>
      </form>
    </section>
  </section>`;
}

function packagesCard(): Html {
  return html`<section id="credit-packages" class="card" aria-labelledby="packages-title">
  <h2 id="packages-title">Buy credits</h2>
  <p>Balance: <strong id="${ids.billingTabBalance}">—</strong> credits, <span id="${ids.billingTabAvailable}">—</span> available.</p>
  <p id="${ids.billingTabGrantNote}" class="callout" hidden>${GRANT_ONCE_NOTE}</p>
  <p class="muted">A package is paid in USDC to the service operator's wallet, not to this workspace's; its credits are added once it is paid. Each purchase can be paid for an hour.</p>
  <p id="${ids.purchasesUnavailable}" class="callout warn" role="status" hidden></p>
  <ul id="${ids.packageList}" class="packages"></ul>
  ${purchaseDetail()}
</section>`;
}

function purchasesCard(): Html {
  return html`<section id="purchases" class="card" aria-labelledby="purchases-title">
  <h2 id="purchases-title">Purchases</h2>
  <p id="${ids.purchaseListStatus}" class="status-line" aria-live="polite"></p>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>Created</th><th>Package</th><th>Credits</th><th>Price</th><th>Status</th><th>Pay by</th><th><span class="visually-hidden">Details</span></th></tr></thead>
      <tbody id="${ids.purchaseRows}"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="${ids.purchaseMore}" class="secondary" hidden>Show older purchases</button></div>
</section>`;
}

function ledgerCard(): Html {
  return html`<section id="ledger" class="card" aria-labelledby="ledger-title">
  <h2 id="ledger-title">Ledger</h2>
  <p class="muted">Every movement of the credits, newest first. The balance is the sum of the changes; reserved credits are held for open invoices' success fees.</p>
  <p id="${ids.ledgerStatus}" class="status-line" aria-live="polite"></p>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>#</th><th>When</th><th>What</th><th>Change</th><th>Reserve</th><th>Balance after</th></tr></thead>
      <tbody id="${ids.ledgerRows}"></tbody>
    </table>
  </div>
  <div class="actions"><button type="button" id="${ids.ledgerMore}" class="secondary" hidden>Show older entries</button></div>
</section>`;
}

/** The billing tab: the packages on offer, the purchases made, and the ledger. Filled by client/billing.ts. */
export function billingPanel(): Html {
  return html`<div id="panel-billing" data-panel="billing" hidden>${packagesCard()}${purchasesCard()}${ledgerCard()}</div>`;
}
