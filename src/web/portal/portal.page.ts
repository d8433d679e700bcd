import { html } from '../html.js';
import { renderLayout, type PortalClientConfig } from './portal.layout.js';
import { apiPanel } from './sections/api.js';
import { automationsPanel } from './sections/automations.js';
import { billingPanel } from './sections/billing.js';
import { invoicesPanel } from './sections/invoices.js';
import { issuesBanner, overviewPanel } from './sections/overview.js';
import { receivedPanel } from './sections/received.js';
import { settingsPanel } from './sections/settings.js';
import { signInSection, type SignInNetwork } from './sections/sign-in.js';
import { statementPanel } from './sections/statement.js';
import { tabNav, workspaceToolbar } from './sections/workspace.js';
import { ids } from './portal.ids.js';

export type { SignInNetwork } from './sections/sign-in.js';

export interface PortalHomeOptions {
  readonly config: PortalClientConfig;
  readonly networks: readonly SignInNetwork[];
  /** Names of the networks invoices may be paid on, for the create form. */
  readonly paymentNetworks?: readonly string[];
  /** The local demo's built-in wallet is served (see PortalLayout). */
  readonly demoWallet?: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: webhooks and checkout return addresses may be on this machine. */
  readonly localReceivers?: boolean;
}

/**
 * `/portal`: one page for everything. The server renders every form and heading, so the markup is
 * complete and accessible before any data arrives; the script fills in what depends on the session
 * and shows the panel named in the URL fragment.
 */
export function renderPortalHome({
  config,
  networks,
  paymentNetworks = [],
  demoWallet = false,
  localReceivers = false,
}: PortalHomeOptions): string {
  const body = html`<p id="${ids.loading}" class="muted">Loading…</p>
${signInSection(networks, demoWallet, config.origin)}
<div id="${ids.signedIn}" hidden>
<h1 class="visually-hidden">Merchant portal</h1>
${workspaceToolbar()}
<div id="${ids.workspaceArea}" hidden>
${issuesBanner()}
${tabNav()}
${overviewPanel()}
${invoicesPanel(paymentNetworks)}
${receivedPanel()}
${automationsPanel(paymentNetworks)}
${billingPanel()}
${statementPanel()}
${apiPanel(localReceivers)}
${settingsPanel(localReceivers)}
</div>
</div>`;
  return renderLayout({ title: 'Portal', config, body, demoWallet });
}
