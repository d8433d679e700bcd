import { MAX_RETURN_ORIGINS } from '../../../modules/checkout-settings/index.js';
import { SUPPORT_URL_MAX_CHARS } from '../../../modules/workspaces/index.js';
import { html, type Html } from '../../html.js';
import { profileFields } from './workspace.js';
import { ids } from '../portal.ids.js';

/**
 * The support contact and the accent colour. A colour input always holds a colour, so "none" is a
 * checkbox of its own; its starting value is the checkout page's own accent.
 */
function buyerPageFields(): Html {
  return html`<label for="${ids.profileSupportContact}">Support contact (email or https URL) <span class="muted">(optional, where buyers ask for help)</span></label>
    <input id="${ids.profileSupportContact}" name="supportContact" maxlength="${SUPPORT_URL_MAX_CHARS}" autocomplete="off" spellcheck="false" placeholder="help@example.com">
    <label for="${ids.profileAccentColor}">Accent colour</label>
    <div class="accent-row">
      <input id="${ids.profileAccentColor}" name="accentColor" type="color" value="#1f55d6" aria-describedby="profile-accent-hint">
      <label class="check"><input type="checkbox" id="${ids.profileAccentNone}" name="accentColorNone"><span>No accent colour: buyers' pages keep their own</span></label>
    </div>
    <p id="profile-accent-hint" class="hint">Buttons on buyers' pages take this colour, a shade darker or lighter where their text would not read on it.</p>`;
}

/** `localReceivers`: WEBHOOK_ALLOW_PRIVATE is on, so http origins on this machine are taken too. */
export function settingsPanel(localReceivers = false): Html {
  return html`<div id="panel-settings" data-panel="settings" hidden>
<section id="profile" class="card" aria-labelledby="profile-title">
  <h2 id="profile-title">Workspace profile</h2>
  <p class="muted">Buyers see these on the checkout page.</p>
  <form id="${ids.profileForm}" novalidate>
    ${profileFields('profile')}
    ${buyerPageFields()}
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
