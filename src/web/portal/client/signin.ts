// The signed-out screen: one button per wallet the browser offers, each labelled with the wallet's own
// name (EIP-6963), and the Sign-In with Ethereum flow behind it.
import type { Session } from './api-types.js';
import { busy, byId, el, notify, reportError, show } from './dom.js';
import { type Wallet, listWallets, onWalletsChanged, signInWithWallet, startWalletDiscovery } from './wallet.js';
import { ids } from '../portal.ids.js';

// Wallets announce themselves within moments of the page loading; after this, "no wallet" is the answer.
const WALLET_WAIT_MS = 600;

/** `onSignedIn(session)` runs after a successful sign-in. */
export function createSignInView({
  chainIds,
  onSignedIn,
}: {
  readonly chainIds: readonly number[];
  readonly onSignedIn: (session: Session) => Promise<void>;
}): { show(): void } {
  const list = byId(ids.walletList);
  const status = byId(ids.signInStatus);
  let waited = false;
  let signingIn = false;

  function button(wallet: Wallet): HTMLButtonElement {
    const label = wallet.name ? `Sign in with ${wallet.name}` : 'Sign in with your browser wallet';
    const node = el(
      'button',
      { type: 'button', class: 'primary wide', disabled: signingIn },
      wallet.icon ? el('img', { class: 'wallet-icon', src: wallet.icon, alt: '' }) : undefined,
      el('span', {}, label),
    );
    node.addEventListener('click', () => signIn(wallet, node));
    return node;
  }

  // The wallets whose buttons are shown, by id: buttons are made anew only when that changes, so a click
  // never lands on a button that a late announcement has just replaced.
  let shown = '';

  function render() {
    // The local demo's buyer holds the test USDC that pays for credits, but owns no workspace: it is
    // offered where it pays, not at sign-in.
    const wallets = listWallets().filter((wallet) => wallet.rdns !== 'local.demo.buyer');
    const walletIds = wallets.map((wallet) => wallet.id).join(' ');
    if (walletIds !== shown || list.childElementCount !== wallets.length) list.replaceChildren(...wallets.map(button));
    shown = walletIds;
    show(byId(ids.walletSearching), !waited && wallets.length === 0);
    show(byId(ids.noWallet), waited && wallets.length === 0);
  }

  async function signIn(wallet: Wallet, clicked: HTMLButtonElement): Promise<void> {
    notify(undefined);
    // One sign-in at a time: a second wallet prompt while the first is open only confuses.
    signingIn = true;
    for (const other of list.querySelectorAll('button')) if (other !== clicked) other.disabled = true;
    await busy(clicked, async () => {
      let session;
      try {
        session = await signInWithWallet(wallet, chainIds, (text) => (status.textContent = text));
      } catch (error) {
        status.textContent = '';
        return reportError(error, status);
      }
      status.textContent = '';
      // Signed in: the sign-in section is gone, so what fails now (loading the workspaces) is said at the top.
      await onSignedIn(session).catch((error: unknown) => reportError(error));
    });
    signingIn = false;
    for (const other of list.querySelectorAll('button')) other.disabled = false;
  }

  startWalletDiscovery();
  onWalletsChanged(render);

  return {
    show() {
      status.textContent = '';
      render();
      window.setTimeout(() => {
        waited = true;
        render();
      }, WALLET_WAIT_MS);
    },
  };
}
