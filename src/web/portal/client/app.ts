// Entry point of /portal: the sign-in screen or the signed-in portal. The workspace is in the query
// (?workspace=ws_…) and the open panel in the fragment (#invoices, #invoice/inv_…), so a reload or a
// shared link opens the same view, and Back goes where people expect.
import type { PortalClientConfig } from '../portal.layout.js';
import { ApiError, api, onSessionLost } from './api.js';
import type { Session, Workspace } from './api-types.js';
import { createAutomationView } from './automation.js';
import { createAutomationsView } from './automations.js';
import { createBillingView } from './billing.js';
import { busy, byId, notify, reportError, shortAddress, show } from './dom.js';
import { createInvoiceView } from './invoice.js';
import { createInvoicesView } from './invoices.js';
import { createKeysView } from './keys.js';
import { createOverviewView } from './overview.js';
import { createReceivedView } from './received.js';
import { createSettingsView } from './settings.js';
import { createSignInView } from './signin.js';
import { createStatementView } from './statement.js';
import { createWebhookView } from './webhook.js';
import { createWorkspacesView } from './workspaces.js';
import { ids } from '../portal.ids.js';

/** Rendered by the server: { origin, chainIds, webhookRetrySchedule, sessionCookie }. */
const config = JSON.parse(byId(ids.portalConfig).textContent ?? '') as PortalClientConfig;

let workspace: Workspace | undefined;
const overview = createOverviewView({ retrySchedule: config.webhookRetrySchedule ?? [] });
const refreshIssues = () => overview.refreshIssues(workspace).catch((error) => reportError(error));
const keys = createKeysView();
const billing = createBillingView({ onChange: refreshIssues });
const statement = createStatementView();
const webhook = createWebhookView({ onChange: refreshIssues });
const invoices = createInvoicesView({
  onCreated: (invoice) => {
    refreshIssues(); // its credits may have brought the balance low
    window.location.hash = `#invoice/${invoice.id}`;
  },
});
const invoice = createInvoiceView({ onChange: refreshIssues });
const received = createReceivedView({ onChange: refreshIssues });
const automations = createAutomationsView({
  onCreated: (created) => {
    window.location.hash = `#automation/${created.id}`;
  },
});
const automation = createAutomationView({ onChange: refreshIssues });
const workspaces = createWorkspacesView({ onSelect: select });
const settings = createSettingsView({
  onProfileSaved: (updated) => {
    workspace = updated;
    workspaces.update(updated);
  },
});
const signInView = createSignInView({ chainIds: config.chainIds, onSignedIn: enterPortal });

/** What each panel loads when it is shown; the argument is the rest of the fragment (an invoice id). */
const PANELS: Readonly<Record<string, (workspace: Workspace, arg: string | undefined) => Promise<unknown>>> = {
  overview: (ws) => overview.show(ws),
  // #invoices/new opens the list with the create form ready to fill in (the overview's "Create invoice").
  invoices: (ws, arg) => invoices.show(ws).then(() => arg === 'new' && invoices.startCreate()),
  invoice: (ws, id) => invoice.show(ws, id ?? ''),
  received: (ws) => received.show(ws),
  automations: (ws) => automations.show(ws),
  automation: (ws, id) => automation.show(ws, id ?? ''),
  billing: (ws) => billing.show(ws),
  statement: (ws) => statement.show(ws),
  api: (ws) => Promise.all([keys.show(ws), webhook.show(ws)]),
  settings: (ws) => settings.show(ws),
};
/** The tab that stays highlighted while a panel without a tab of its own is open. */
const TAB_OF: Readonly<Record<string, string>> = { invoice: 'invoices', automation: 'automations' };

/** Shows the panel the fragment names; `moveFocus` (after a click, not on load) takes keyboard and screen reader users there. */
function route(moveFocus = false): void {
  if (!workspace) return;
  const [name = '', arg] = window.location.hash.slice(1).split('/');
  const panel = Object.hasOwn(PANELS, name) ? name : 'overview';
  const tab = TAB_OF[panel] ?? panel;
  // What was said about the panel left behind is stale on the one shown now.
  notify(undefined);
  for (const node of document.querySelectorAll<HTMLElement>('[data-panel]')) show(node, node.dataset.panel === panel);
  for (const link of document.querySelectorAll<HTMLElement>('[data-tab]')) {
    if (link.dataset.tab === tab) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // One-time secrets never outlive the panel they were shown in.
  if (panel !== 'api') {
    keys.hideSecret();
    webhook.hideSecret();
  }
  const heading = document.querySelector<HTMLElement>(`[data-panel="${panel}"] h2`);
  if (moveFocus && heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  PANELS[panel]?.(workspace, arg && decodeURIComponent(arg)).catch((error: unknown) => reportError(error));
}

function select(selected: Workspace | undefined): void {
  const switched = workspace !== undefined && selected?.id !== workspace.id;
  workspace = selected;
  show(byId(ids.workspaceArea), Boolean(selected));
  if (!selected) return;
  refreshIssues();
  // An invoice or automation of the previous workspace is not in this one.
  if (switched && window.location.hash.startsWith('#invoice/')) window.location.hash = '#invoices';
  else if (switched && window.location.hash.startsWith('#automation/')) window.location.hash = '#automations';
  else route();
}

function showSignIn(message?: string): void {
  workspace = undefined;
  workspaces.reset();
  show(byId(ids.loading), false);
  show(byId(ids.session), false);
  show(byId(ids.signedIn), false);
  show(byId(ids.signedOut), true);
  notify(message, 'info');
  signInView.show();
}

async function enterPortal(session: Session): Promise<void> {
  const address = byId(ids.sessionAddress);
  address.textContent = shortAddress(session.address);
  address.title = session.address;
  show(byId(ids.loading), false);
  show(byId(ids.signedOut), false);
  show(byId(ids.session), true);
  show(byId(ids.signedIn), true);
  await workspaces.load();
}

async function signOut(button: HTMLButtonElement): Promise<void> {
  await busy(button, async () => {
    try {
      await api.post('/auth/logout');
      showSignIn('You are signed out.');
    } catch (error) {
      reportError(error);
    }
  });
}

async function start(): Promise<void> {
  onSessionLost(() => showSignIn('Your session has ended. Sign in again to continue.'));
  window.addEventListener('hashchange', () => route(true));
  // The service checks each sign-in's Origin, which the browser takes from this address: elsewhere
  // every wallet button would fail, so they are disabled (all at once, through their fieldset).
  if (window.location.origin !== config.origin) {
    show(byId(ids.originWarning), true);
    byId(ids.walletList, HTMLFieldSetElement).disabled = true;
  }
  const signOutButton = byId(ids.signOut, HTMLButtonElement);
  signOutButton.addEventListener('click', () => signOut(signOutButton));

  let session: Session | undefined;
  try {
    if (config.sessionCookie !== false) session = await api.get<Session>('/auth/session');
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
  if (session) await enterPortal(session);
  else showSignIn();
}

start().catch((error: unknown) => {
  show(byId(ids.loading), false);
  if (error instanceof ApiError && error.sessionLost) return;
  notify(`The portal could not start: ${error instanceof Error ? error.message : String(error)}`);
});
