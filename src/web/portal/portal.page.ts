import { PERMISSION_PRESETS, PERMISSIONS, MAX_ACTIVE_KEYS, type Permission } from '../../modules/api-keys/api-key.js';
import { CreateApiKeyBody } from '../../modules/api-keys/api-key.schemas.js';
import { NAME_MAX_CHARS, PORTAL_DESCRIPTION_MAX_CHARS } from '../../modules/workspaces/workspace.js';
import { html, type Html } from './html.js';
import { renderLayout, type PortalClientConfig } from './portal.layout.js';

export interface SignInNetwork {
  readonly chainId: number;
  readonly name: string;
}

export interface PortalHomeOptions {
  readonly config: PortalClientConfig;
  readonly networks: readonly SignInNetwork[];
}

/** What each permission allows (DESIGN.md §7); a Record, so a new permission fails to compile until described. */
const PERMISSION_HINTS: Readonly<Record<Permission, string>> = {
  'invoices:create': 'Create invoices and batches',
  'invoices:read': 'Read invoices, changes, search and receipts',
  'payments:read': 'Invoice status, timeline and payment intents',
  'billing:read': 'Credit balance and billing issues',
  'webhooks:read': 'Read webhook endpoints and deliveries',
  'webhooks:write': 'Create and change webhook endpoints',
  'settings:write': 'Change checkout settings',
};

const PRESET_LABELS: Readonly<Record<keyof typeof PERMISSION_PRESETS, string>> = {
  'create-invoices': 'Create invoices',
  'read-invoices': 'Read invoices',
};

const KEY_NAME_MAX_CHARS = CreateApiKeyBody.properties.name.maxLength ?? 100;

function signInSection(networks: readonly SignInNetwork[]): Html {
  return html`<section id="signed-out" class="card narrow" hidden>
  <h1>Sign in</h1>
  <p>Sign in with the wallet that owns your workspaces. Your wallet signs a short message (Sign-In with Ethereum): no transaction, no fee.</p>
  <p class="muted">Networks you can sign in on: ${networks.map((n, i) => html`${i > 0 ? ', ' : ''}<span class="nowrap">${n.name} (chain ${n.chainId})</span>`)}.</p>
  <button type="button" id="sign-in" class="primary wide"><img id="wallet-icon" class="wallet-icon" alt="" hidden><span id="sign-in-label">Sign in with your wallet</span></button>
  <p id="sign-in-status" class="status-line" aria-live="polite"></p>
  <div id="no-wallet" class="callout" hidden>
    <p><strong>No browser wallet found.</strong> Install a wallet extension that supports Ethereum (EIP-1193), or open this page in a wallet's built-in browser, then reload.</p>
    <p>Just trying the service locally? <code>npm start</code> prints a demo API key for its demo workspace: use it with the <a href="/docs">API</a> directly, no wallet needed.</p>
  </div>
  <div id="origin-warning" class="callout warn" hidden>
    <p>This service's address is <a id="origin-link" href="/portal"></a>. Open the portal there to sign in: the signed message names the site, and the service only accepts its own.</p>
  </div>
</section>`;
}

function workspaceSection(): Html {
  return html`<div class="toolbar">
  <label for="workspace-select">Workspace</label>
  <select id="workspace-select"></select>
  <button type="button" id="show-create-workspace" class="secondary">New workspace</button>
</div>
<section id="workspace-create" class="card" hidden>
  <h2>Create a workspace</h2>
  <p class="muted">Your signed-in wallet becomes its receiving address: buyers' payments go straight to it.</p>
  <form id="workspace-form" novalidate>
    <label for="workspace-name-input">Name</label>
    <input id="workspace-name-input" name="name" required maxlength="${NAME_MAX_CHARS}" autocomplete="off" placeholder="e.g. My shop">
    <label for="workspace-description-input">Description <span class="muted">(optional)</span></label>
    <textarea id="workspace-description-input" name="description" rows="3" data-max="${PORTAL_DESCRIPTION_MAX_CHARS}" aria-describedby="description-count"></textarea>
    <p id="description-count" class="counter" aria-live="polite">0 / ${PORTAL_DESCRIPTION_MAX_CHARS}</p>
    <div class="actions">
      <button type="submit" class="primary">Create workspace</button>
      <button type="button" id="cancel-create-workspace" class="secondary">Cancel</button>
    </div>
  </form>
</section>
<section id="workspace" class="card" hidden>
  <h2 id="workspace-title"></h2>
  <p id="workspace-description" class="muted"></p>
  <dl class="facts">
    <dt>Workspace id</dt><dd><code id="workspace-id"></code> <button type="button" class="secondary small" data-copy-from="workspace-id">Copy</button></dd>
    <dt>Receiving wallet</dt><dd><code id="workspace-wallet"></code></dd>
    <dt>API base URL</dt><dd><code id="workspace-api-base"></code> <button type="button" class="secondary small" data-copy-from="workspace-api-base">Copy</button></dd>
  </dl>
</section>`;
}

function keysSection(): Html {
  const presets = Object.entries(PERMISSION_PRESETS) as [keyof typeof PERMISSION_PRESETS, readonly Permission[]][];
  return html`<section id="keys" class="card" hidden>
  <h2>API keys</h2>
  <p class="muted">Your server sends a key as <code>Authorization: Bearer …</code> to act on this workspace. At most ${MAX_ACTIVE_KEYS} active keys.</p>
  <div id="secret-box" class="secret" hidden>
    <h3>Copy your new API key now</h3>
    <p><strong>It is shown once.</strong> The service keeps only a hash of it: store it in your server's secret settings now. If you lose it, revoke it and create another.</p>
    <div class="secret-row"><code id="secret-value" class="secret-value"></code><button type="button" id="copy-secret" class="primary">Copy</button></div>
    <button type="button" id="dismiss-secret" class="secondary">I have stored it</button>
  </div>
  <div class="table-wrap">
    <table class="keys-table">
      <thead><tr><th>Name</th><th>Prefix</th><th>Permissions</th><th>Status</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="keys-body"></tbody>
    </table>
  </div>
  <p id="keys-empty" class="muted" hidden>No keys yet. Create one below.</p>
  <h3>Create a key</h3>
  <form id="key-form" novalidate>
    <label for="key-name-input">Name</label>
    <input id="key-name-input" name="name" required maxlength="${KEY_NAME_MAX_CHARS}" autocomplete="off" placeholder="e.g. production server">
    <fieldset>
      <legend>Permissions</legend>
      <div class="presets"><span class="muted">Presets:</span>${presets.map(
        ([id, permissions]) => html` <button type="button" class="secondary small" data-preset="${permissions.join(' ')}" data-preset-id="${id}">${PRESET_LABELS[id]}</button>`,
      )}</div>
      <div class="permissions">${PERMISSIONS.map(
        (permission) =>
          html`<label class="check"><input type="checkbox" name="permissions" value="${permission}"><span><code>${permission}</code><small class="muted">${PERMISSION_HINTS[permission]}</small></span></label>`,
      )}</div>
    </fieldset>
    <div class="actions"><button type="submit" class="primary">Create key</button></div>
  </form>
</section>`;
}

/** `/portal`: sign-in, workspaces and API keys. The script fills in everything that depends on the session. */
export function renderPortalHome({ config, networks }: PortalHomeOptions): string {
  const body = html`<p id="loading" class="muted">Loading…</p>
${signInSection(networks)}
<div id="signed-in" hidden>
${workspaceSection()}
${keysSection()}
</div>`;
  return renderLayout({ title: 'Portal', config, body });
}
