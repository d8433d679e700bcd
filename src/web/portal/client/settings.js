// The settings panel: the workspace profile buyers see, and the checkout return origins.
import { api, workspacePath } from './api.js';
import { bindCounter, busy, byId, fieldError, formError, notify, reportError } from './dom.js';

/** `onProfileSaved(workspace)` runs with the workspace as the server saved it. */
export function createSettingsView({ onProfileSaved }) {
  const profile = byId('profile-form');
  const description = byId('profile-description-input');
  const updateCounter = bindCounter(description, byId('profile-description-count'));
  const origins = byId('origins-form');
  let workspace;

  const lines = (text) =>
    text
      .split(/[\n,]/)
      .map((line) => line.trim())
      .filter((line) => line !== '');

  profile.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = profile.elements.name.value.trim();
    formError(profile);
    if (name === '') return fieldError(profile.elements.name, 'The workspace needs a name.');
    if (!updateCounter())
      return fieldError(description, `The description is too long: at most ${description.dataset.max} characters.`);
    const target = workspace;
    busy(profile.querySelector('[type=submit]'), async () => {
      try {
        const saved = await api.patch(workspacePath(target.id), { name, description: description.value.trim() });
        workspace = saved;
        onProfileSaved(saved);
        notify('Profile saved.', 'success');
      } catch (error) {
        reportError(error, profile);
      }
    });
  });

  origins.addEventListener('submit', (event) => {
    event.preventDefault();
    formError(origins);
    const target = workspace;
    busy(origins.querySelector('[type=submit]'), async () => {
      try {
        const saved = await api.put(workspacePath(target.id, 'checkout-settings'), {
          origins: lines(origins.elements.origins.value),
        });
        // The server's spelling (lowercase host, no :443), so what is shown is what is enforced.
        origins.elements.origins.value = saved.origins.join('\n');
        notify(
          saved.origins.length === 0
            ? 'No return origins: invoices cannot carry return links.'
            : 'Return origins saved.',
          'success',
        );
      } catch (error) {
        reportError(error, origins);
      }
    });
  });

  return {
    async show(selected) {
      workspace = selected;
      profile.elements.name.value = selected.name;
      description.value = selected.description;
      updateCounter();
      formError(profile);
      formError(origins);
      // Not editable until the saved list is in, so nothing typed meanwhile is overwritten.
      const field = origins.elements.origins;
      field.disabled = true;
      try {
        const saved = await api.get(workspacePath(selected.id, 'checkout-settings'));
        if (workspace === selected) field.value = saved.origins.join('\n');
      } finally {
        field.disabled = false;
      }
    },
  };
}
