import { MAX_ACTIVE_KEYS, PERMISSION_PRESETS, PERMISSIONS, type Permission } from '../../../modules/api-keys/index.js';
import { CreateApiKeyBody } from '../../../modules/api-keys/index.js';
import { html, type Html } from '../../html.js';
import { ids, secretBoxIds } from '../portal.ids.js';

/** What each permission allows; a Record, so a new permission fails to compile until described. */
const PERMISSION_HINTS: Readonly<Record<Permission, string>> = {
  'invoices:create': 'Create, cancel and renew invoices (batches need Read invoices too)',
  'invoices:read': 'Read invoices, changes, search and receipts',
  'payments:read': 'Invoice status, timeline and payment intents',
  'payments:write': 'Apply or dismiss transfers received without a matching invoice',
  'billing:read': 'Credit balance, ledger, purchases and health issues',
  'billing:write': 'Buy credit packages',
  'webhooks:read': 'Read the webhook endpoint and deliveries',
  'webhooks:write': 'Change the webhook endpoint, test, retry',
  'settings:write': 'Change checkout settings and the workspace profile',
};

/** The two presets, named for what a server does with them. */
const PRESET_LABELS: Readonly<Record<keyof typeof PERMISSION_PRESETS, string>> = {
  'create-invoices': 'Create invoices',
  'read-invoices': 'Read invoices',
};

const KEY_NAME_MAX_CHARS = CreateApiKeyBody.properties.name.maxLength ?? 100;

/** A one-time secret: shown after creation or rotation, then gone from the page for good. */
export function secretBox(prefix: 'key' | 'webhook', title: string, body: Html): Html {
  const id = secretBoxIds(prefix);
  return html`<div id="${id.box}" class="secret" hidden>
    <h3>${title}</h3>
    ${body}
    <div class="secret-row"><code id="${id.value}" class="secret-value"></code><button type="button" id="${id.copy}" class="primary">Copy</button></div>
    <button type="button" id="${id.dismiss}" class="secondary">I have stored it</button>
  </div>`;
}

function keysCard(): Html {
  const presets = Object.entries(PERMISSION_PRESETS) as [keyof typeof PERMISSION_PRESETS, readonly Permission[]][];
  return html`<section id="${ids.keys}" class="card" aria-labelledby="keys-title">
  <h2 id="keys-title">API keys</h2>
  <p class="muted">Your server sends a key as <code>Authorization: Bearer …</code> to act on this workspace. At most ${MAX_ACTIVE_KEYS} active keys.</p>
  ${secretBox(
    'key',
    'Copy your new API key now',
    html`<p><strong>It is shown once.</strong> The service keeps only a hash of it: store it in your server's secret settings now. If you lose it, revoke it and create another.</p>`,
  )}
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>Name</th><th>Prefix</th><th>Permissions</th><th>Status</th><th>Created</th><th>Last used</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="${ids.keysBody}"></tbody>
    </table>
  </div>
  <p id="${ids.keysEmpty}" class="muted" hidden>No keys yet. Create one below.</p>
  <h3>Create a key</h3>
  <form id="${ids.keyForm}" novalidate>
    <label for="key-name-input">Name</label>
    <input id="key-name-input" name="name" required maxlength="${KEY_NAME_MAX_CHARS}" autocomplete="off" placeholder="e.g. production server">
    <fieldset>
      <legend>Permissions</legend>
      <div class="presets"><span class="muted">Presets:</span>${presets.map(
        ([id, permissions]) =>
          html` <button type="button" class="secondary small" data-preset="${permissions.join(' ')}" data-preset-id="${id}">${PRESET_LABELS[id]}</button>`,
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

/** `localReceivers`: WEBHOOK_ALLOW_PRIVATE is on, so the hint says that receivers on this machine are taken. */
function webhookCard(localReceivers: boolean): Html {
  return html`<section id="webhook" class="card" aria-labelledby="webhook-title">
  <h2 id="webhook-title">Webhook</h2>
  <p class="muted">Your server hears about every confirmed payment as a signed POST (<code>payment_intent.succeeded</code>), retried until it answers 2xx. <a href="/docs">How to check the signature</a>.</p>
  <p id="${ids.webhookState}" class="status-line" aria-live="polite"></p>
  <form id="${ids.webhookForm}" novalidate>
    <label for="webhook-endpoint">Endpoint URL</label>
    <input id="webhook-endpoint" name="endpoint" type="url" required autocomplete="off" placeholder="https://shop.example.com/hooks/payments" aria-describedby="webhook-endpoint-hint">
    <p id="webhook-endpoint-hint" class="hint">${localReceivers ? 'An http or https address, on this machine too (this service allows private receivers: WEBHOOK_ALLOW_PRIVATE, for local development).' : 'A public https address on port 443.'}</p>
    <div class="actions"><button type="submit" class="primary">Save endpoint</button></div>
  </form>
  <div id="${ids.webhookControls}" class="actions" hidden>
    <button type="button" id="${ids.webhookToggle}" class="secondary"></button>
    <button type="button" id="${ids.webhookRotate}" class="secondary">Rotate the secret</button>
    <button type="button" id="${ids.webhookTest}" class="secondary">Send a test event</button>
  </div>
  <p id="${ids.webhookTestResult}" class="status-line" aria-live="polite"></p>
  ${secretBox(
    'webhook',
    'Copy your signing secret now',
    html`<p><strong>It is shown once.</strong> Your receiver checks each request's signature with it. After a rotation delivery is paused and events wait: put the new secret in your receiver, send a test event, then resume delivery.</p>`,
  )}
  <div class="heading-row"><h3>Recent deliveries</h3><button type="button" id="${ids.webhookRefresh}" class="secondary small">Refresh</button></div>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>Event</th><th>Type</th><th>Status</th><th>Attempts</th><th>Last result</th><th>Last attempt</th><th>Next attempt</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody id="${ids.deliveriesBody}"></tbody>
    </table>
  </div>
  <p id="${ids.deliveriesEmpty}" class="muted" hidden>No deliveries yet.</p>
  <h3>Recent attempts</h3>
  <div class="table-wrap">
    <table class="stack-table">
      <thead><tr><th>Event</th><th>Attempt</th><th>Started</th><th>Result</th><th>Duration</th></tr></thead>
      <tbody id="${ids.attemptsBody}"></tbody>
    </table>
  </div>
  <p id="${ids.attemptsEmpty}" class="muted" hidden>No attempts yet.</p>
</section>`;
}

export function apiPanel(localReceivers = false): Html {
  return html`<div id="panel-api" data-panel="api" hidden>${keysCard()}${webhookCard(localReceivers)}</div>`;
}
