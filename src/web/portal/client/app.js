/* global window */
// Entry point of /portal: decides between the sign-in screen and the signed-in portal.
import { ApiError, api, onSessionLost } from './api.js';
import { busy, byId, notify, reportError, shortAddress, show } from './dom.js';
import { createKeysView } from './keys.js';
import { findWallet, onWalletsChanged, signInWithWallet, startWalletDiscovery } from './wallet.js';
import { createWorkspacesView } from './workspaces.js';

/** Rendered by the server: { origin, chainIds }. */
const config = JSON.parse(byId('portal-config').textContent);
const keys = createKeysView();
const workspaces = createWorkspacesView({
  onSelect: (workspace) => keys.show(workspace).catch((error) => reportError(error)),
});

// Wallets announce themselves within moments of the page loading; after this, "no wallet" is the answer.
const WALLET_WAIT_MS = 600;

function showWallet() {
  const wallet = findWallet();
  if (wallet) show(byId('no-wallet'), false);
  const icon = byId('wallet-icon');
  byId('sign-in-label').textContent = wallet?.name ? `Sign in with ${wallet.name}` : 'Sign in with your wallet';
  if (wallet?.icon) icon.src = wallet.icon;
  show(icon, Boolean(wallet?.icon));
}

function showSignIn(message) {
  workspaces.reset();
  keys.show(undefined);
  show(byId('loading'), false);
  show(byId('session'), false);
  show(byId('signed-in'), false);
  show(byId('signed-out'), true);
  byId('sign-in-status').textContent = '';
  notify(message, 'info');
  showWallet();
  window.setTimeout(() => show(byId('no-wallet'), !findWallet()), WALLET_WAIT_MS);
}

async function enterPortal(session) {
  const address = byId('session-address');
  address.textContent = shortAddress(session.address);
  address.title = session.address;
  show(byId('loading'), false);
  show(byId('signed-out'), false);
  show(byId('session'), true);
  show(byId('signed-in'), true);
  await workspaces.load();
}

async function signIn(button) {
  const status = byId('sign-in-status');
  const wallet = findWallet();
  show(byId('no-wallet'), !wallet);
  if (!wallet) return;
  notify(undefined);
  await busy(button, async () => {
    try {
      const session = await signInWithWallet(wallet, config.chainIds, (text) => (status.textContent = text));
      status.textContent = '';
      await enterPortal(session);
    } catch (error) {
      status.textContent = '';
      reportError(error);
    }
  });
}

async function signOut(button) {
  await busy(button, async () => {
    try {
      await api.post('/auth/logout');
      showSignIn('You are signed out.');
    } catch (error) {
      reportError(error);
    }
  });
}

async function start() {
  startWalletDiscovery();
  onWalletsChanged(showWallet);
  onSessionLost(() => showSignIn('Your session has ended. Sign in again to continue.'));
  if (window.location.origin !== config.origin) {
    const link = byId('origin-link');
    link.href = `${config.origin}/portal`;
    link.textContent = `${config.origin}/portal`;
    show(byId('origin-warning'), true);
  }
  byId('sign-in').addEventListener('click', (event) => signIn(event.currentTarget));
  byId('sign-out').addEventListener('click', (event) => signOut(event.currentTarget));

  let session;
  try {
    session = await api.get('/auth/session');
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
  if (session) await enterPortal(session);
  else showSignIn();
}

start().catch((error) => {
  show(byId('loading'), false);
  if (error?.sessionLost) return;
  notify(`The portal could not start: ${error.message}`);
});
