import { NAME_MAX_CHARS, PORTAL_DESCRIPTION_MAX_CHARS } from '../../../modules/workspaces/index.js';
import { html, type Html } from '../../html.js';
import { ids, profileFieldIds } from '../portal.ids.js';

/** Name and description inputs with a live character counter; shared by "create" and "settings". */
export function profileFields(prefix: 'workspace' | 'profile'): Html {
  const id = profileFieldIds(prefix);
  return html`<label for="${id.name}">Name</label>
    <input id="${id.name}" name="name" required maxlength="${NAME_MAX_CHARS}" autocomplete="off" placeholder="e.g. My shop">
    <label for="${id.description}">Description <span class="muted">(optional, shown to buyers on the checkout page)</span></label>
    <textarea id="${id.description}" name="description" rows="3" data-max="${PORTAL_DESCRIPTION_MAX_CHARS}" aria-describedby="${id.descriptionCount}"></textarea>
    <p id="${id.descriptionCount}" class="counter" aria-live="polite">0 / ${PORTAL_DESCRIPTION_MAX_CHARS}</p>`;
}

/** The workspace picker and the create-workspace form, above the tabs. */
export function workspaceToolbar(): Html {
  return html`<div class="toolbar">
  <label for="${ids.workspaceSelect}">Workspace</label>
  <select id="${ids.workspaceSelect}"></select>
  <button type="button" id="${ids.showCreateWorkspace}" class="secondary">New workspace</button>
</div>
<section id="${ids.workspaceCreate}" class="card" hidden>
  <h2>Create a workspace</h2>
  <p class="muted">Your signed-in wallet becomes its receiving address: buyers' payments go straight to it.</p>
  <form id="${ids.workspaceForm}" novalidate>
    ${profileFields('workspace')}
    <div class="actions">
      <button type="submit" class="primary">Create workspace</button>
      <button type="button" id="${ids.cancelCreateWorkspace}" class="secondary">Cancel</button>
    </div>
  </form>
</section>`;
}

/** The tab links; the script shows the panel named in the URL fragment (#overview, #invoices, #received, …). */
export function tabNav(): Html {
  const tabs = [
    ['overview', 'Overview'],
    ['invoices', 'Invoices'],
    ['received', 'Received'],
    ['automations', 'Automations'],
    ['billing', 'Billing'],
    ['statement', 'Statement'],
    ['api', 'API'],
    ['settings', 'Settings'],
  ] as const;
  return html`<nav class="tabs" aria-label="Workspace">${tabs.map(([id, label]) => html`<a href="#${id}" data-tab="${id}">${label}</a>`)}</nav>`;
}
