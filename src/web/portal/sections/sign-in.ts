import { html, type Html } from '../../html.js';
import { ids } from '../portal.ids.js';

export interface SignInNetwork {
  readonly chainId: number;
  readonly name: string;
}

/**
 * The signed-out screen. The script lists every wallet the browser announces (EIP-6963) as its own
 * button, labelled with the wallet's name, so a person with several wallets chooses which one signs.
 * Opened at another address than `origin` (the configured PUBLIC_BASE_URL's), the script shows the
 * warning and disables the list: the service refuses a sign-in from any origin but its own.
 */
export function signInSection(networks: readonly SignInNetwork[], demoWallet: boolean, origin: string): Html {
  return html`<section id="${ids.signedOut}" class="card narrow" hidden>
  <h1>Sign in</h1>
  <p>Sign in with the wallet that owns your workspaces. Your wallet signs a short message (Sign-In with Ethereum): no transaction, no fee.</p>
  <p class="muted">Networks you can sign in on: ${networks.map((n, i) => html`${i > 0 ? ', ' : ''}<span class="nowrap">${n.name} (chain ${n.chainId})</span>`)}.</p>
  ${
    demoWallet &&
    html`<div class="callout">
    <p><strong>Local demo.</strong> No wallet extension? Choose <strong>Demo wallet: merchant</strong>: a wallet built into this demo that signs on this computer with the demo workspace's key. It exists only while the service runs its local demo chain.</p>
  </div>`
  }
  <div id="${ids.originWarning}" class="callout warn" hidden>
    <p><strong>Sign in at <a id="origin-link" href="${origin}/portal">${origin}</a></strong> — this address is not the one the service is configured for. The wallet's signed message names the site it was signed on, and the service accepts only its own.</p>
  </div>
  <fieldset id="${ids.walletList}" class="wallet-list" aria-label="Wallets found in this browser"></fieldset>
  <p id="${ids.walletSearching}" class="muted">Looking for wallets in this browser…</p>
  <p id="${ids.signInStatus}" class="status-line" aria-live="polite"></p>
  <div id="${ids.noWallet}" class="callout" hidden>
    <p><strong>No browser wallet found.</strong> Install a wallet extension that supports Ethereum (EIP-1193), or open this page in a wallet's built-in browser, then reload.</p>
    <p>Just trying the service locally? <code>npm start</code> prints a demo API key for its demo workspace: use it with the <a href="/docs">API</a> directly, no wallet needed.</p>
  </div>
</section>`;
}
