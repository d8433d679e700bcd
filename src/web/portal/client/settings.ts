// The settings panel: the workspace profile buyers see, and the checkout return origins.
import { api, workspacePath } from './api.js';
import type { CheckoutSettings, Workspace } from './api-types.js';
import { bindCounter, busy, byId, field, fieldError, formError, notify, reportError, submitButton } from './dom.js';
import { ids, profileFieldIds } from '../portal.ids.js';

/** `onProfileSaved(workspace)` runs with the workspace as the server saved it. */
export function createSettingsView({ onProfileSaved }: { readonly onProfileSaved: (workspace: Workspace) => void }): {
  show(selected: Workspace): Promise<void>;
} {
  const profile = byId(ids.profileForm, HTMLFormElement);
  const fields = profileFieldIds('profile');
  const description = byId(fields.description, HTMLTextAreaElement);
  const updateCounter = bindCounter(description, byId(fields.descriptionCount));
  const supportContact = byId(ids.profileSupportContact, HTMLInputElement);
  const accentColor = byId(ids.profileAccentColor, HTMLInputElement);
  const accentNone = byId(ids.profileAccentNone, HTMLInputElement);
  const origins = byId(ids.originsForm, HTMLFormElement);
  let workspace: Workspace | undefined;

  const lines = (text: string) =>
    text
      .split(/[\n,]/)
      .map((line) => line.trim())
      .filter((line) => line !== '');

  // Picking a colour means wanting one.
  accentColor.addEventListener('input', () => {
    accentNone.checked = false;
  });

  profile.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = field(profile, 'name').value.trim();
    formError(profile);
    if (name === '') return fieldError(field(profile, 'name'), 'The workspace needs a name.');
    if (!updateCounter())
      return fieldError(description, `The description is too long: at most ${description.dataset.max} characters.`);
    const target = workspace;
    if (!target) return;
    busy(submitButton(profile), async () => {
      try {
        const saved = await api.patch<Workspace>(workspacePath(target.id), {
          name,
          description: description.value.trim(),
          supportContact: supportContact.value.trim() || null,
          accentColor: accentNone.checked ? null : accentColor.value,
        });
        showBuyerPageFields(saved);
        workspace = saved;
        onProfileSaved(saved);
        notify('Profile saved.', 'success', { near: profile });
      } catch (error) {
        reportError(error, profile);
      }
    });
  });

  origins.addEventListener('submit', (event) => {
    event.preventDefault();
    formError(origins);
    const target = workspace;
    if (!target) return;
    busy(submitButton(origins), async () => {
      try {
        const saved = await api.put<CheckoutSettings>(workspacePath(target.id, 'checkout-settings'), {
          origins: lines(field(origins, 'origins').value),
        });
        // The server's spelling (lowercase host, no :443), so what is shown is what is enforced.
        field(origins, 'origins').value = saved.origins.join('\n');
        notify(
          saved.origins.length === 0
            ? 'No return origins: invoices cannot carry return links.'
            : 'Return origins saved.',
          'success',
          { near: origins },
        );
      } catch (error) {
        reportError(error, origins);
      }
    });
  });

  /** The fields as the server stored them (an https URL in its parser's spelling, the colour lowercase). */
  function showBuyerPageFields(saved: Workspace): void {
    supportContact.value = saved.supportContact ?? '';
    accentColor.value = saved.accentColor ?? accentColor.defaultValue;
    accentNone.checked = saved.accentColor === null;
  }

  return {
    async show(selected) {
      workspace = selected;
      field(profile, 'name').value = selected.name;
      description.value = selected.description;
      showBuyerPageFields(selected);
      updateCounter();
      formError(profile);
      formError(origins);
      // Not editable until the saved list is in, so nothing typed meanwhile is overwritten.
      const list = field(origins, 'origins');
      list.disabled = true;
      try {
        const saved = await api.get<CheckoutSettings>(workspacePath(selected.id, 'checkout-settings'));
        if (workspace === selected) list.value = saved.origins.join('\n');
      } finally {
        list.disabled = false;
      }
    },
  };
}
