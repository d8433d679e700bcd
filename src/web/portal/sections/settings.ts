import { MAX_RETURN_ORIGINS } from '../../../modules/checkout-settings/index.js';
import { html, type Html } from '../../html.js';
import { profileFields } from './workspace.js';
import { ids } from '../portal.ids.js';

/** `localReceivers`: WEBHOOK_ALLOW_PRIVATE is on, so http origins on this machine are taken too. */
export function settingsPanel(localReceivers = false): Html {
  return html`<div id="panel-settings" data-panel="settings" hidden>
<section id="profile" class="card" aria-labelledby="profile-title">
  <h2 id="profile-title">Workspace profile</h2>
  <p class="muted">Buyers see the name and the description on the checkout page.</p>
  <form id="${ids.profileForm}" novalidate>
    ${profileFields('profile')}
    <div class="actions"><button type="submit" class="primary">Save profile</button></div>
  </form>
</section>
<section id="origins" class="card" aria-labelledby="origins-title">
  <h2 id="origins-title">Checkout return origins</h2>
  <p class="muted">The <code>successUrl</code> and <code>cancelUrl</code> of new invoices must be on one of these sites: exact <code>https://host</code> origins on port 443, no paths or wildcards, at most ${MAX_RETURN_ORIGINS}.${localReceivers ? html` On this service <code>http://localhost:port</code> and <code>http://127.0.0.1:port</code> are taken too, for local development.` : ''} Invoices already created keep their links.</p>
  <form id="${ids.originsForm}" novalidate>
    <label for="origins-input">Allowed origins, one per line</label>
    <textarea id="origins-input" name="origins" rows="4" autocomplete="off" spellcheck="false" placeholder="https://shop.example.com"></textarea>
    <div class="actions"><button type="submit" class="primary">Save origins</button></div>
  </form>
</section>
</div>`;
}
