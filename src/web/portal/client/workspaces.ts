// The workspace selector, the create-workspace form and the selected workspace's details.
import { api } from './api.js';
import type { Workspace, WorkspaceList } from './api-types.js';
import {
  bindCounter,
  busy,
  byId,
  copyFrom,
  el,
  field,
  fieldError,
  formError,
  notify,
  reportError,
  show,
  submitButton,
} from './dom.js';
import { ids, profileFieldIds } from '../portal.ids.js';

/** `onSelect(workspace | undefined)` runs whenever the selected workspace changes. */
export function createWorkspacesView({ onSelect }: { readonly onSelect: (workspace: Workspace | undefined) => void }): {
  load(): Promise<void>;
  update(changed: Workspace): void;
  reset(): void;
} {
  const select = byId(ids.workspaceSelect, HTMLSelectElement);
  const createCard = byId(ids.workspaceCreate);
  const form = byId(ids.workspaceForm, HTMLFormElement);
  const fields = profileFieldIds('workspace');
  const description = byId(fields.description, HTMLTextAreaElement);
  const updateCounter = bindCounter(description, byId(fields.descriptionCount));
  let workspaces: Workspace[] = [];
  let selected: Workspace | undefined;

  const selectedId = () => new URL(window.location.href).searchParams.get('workspace');
  const remember = (id: string | undefined) => {
    const url = new URL(window.location.href);
    if (id) url.searchParams.set('workspace', id);
    else url.searchParams.delete('workspace');
    history.replaceState(null, '', url);
  };

  function openCreate(open: boolean): void {
    show(createCard, open);
    formError(form);
    if (open) field(form, 'name').focus();
  }

  function render(): void {
    select.replaceChildren(
      ...workspaces.map((w) => el('option', { value: w.id, selected: w.id === selected?.id }, w.name)),
    );
    if (select.parentElement) show(select.parentElement, workspaces.length > 0);
    if (selected) {
      byId(ids.workspaceTitle).textContent = selected.name;
      byId(ids.workspaceDescription).textContent = selected.description;
      show(byId(ids.workspaceDescription), selected.description !== '');
      byId(ids.workspaceId).textContent = selected.id;
      byId(ids.workspaceWallet).textContent = selected.wallet;
      byId(ids.workspaceApiBase).textContent = `${window.location.origin}/w/${selected.id}/v1`;
    }
    // With no workspace yet, creating one is the only thing to do.
    if (workspaces.length === 0) openCreate(true);
    byId(ids.cancelCreateWorkspace).hidden = workspaces.length === 0;
  }

  function choose(id: string | null): void {
    selected = workspaces.find((w) => w.id === id) ?? workspaces[0];
    remember(selected?.id);
    render();
    onSelect(selected);
  }

  select.addEventListener('change', () => choose(select.value));
  byId(ids.showCreateWorkspace).addEventListener('click', () => openCreate(true));
  byId(ids.cancelCreateWorkspace).addEventListener('click', () => openCreate(false));
  for (const button of byId(ids.workspace).querySelectorAll<HTMLElement>('[data-copy-from]')) {
    button.addEventListener('click', () => copyFrom(byId(button.dataset.copyFrom ?? ''), button));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = field(form, 'name').value.trim();
    const text = description.value.trim();
    formError(form);
    if (name === '') return fieldError(field(form, 'name'), 'Give the workspace a name.');
    if (!updateCounter())
      return fieldError(description, `The description is too long: at most ${description.dataset.max} characters.`);
    busy(submitButton(form), async () => {
      try {
        const created = await api.post<Workspace>(
          '/portal/api/workspaces',
          text === '' ? { name } : { name, description: text },
        );
        form.reset();
        updateCounter();
        openCreate(false);
        workspaces = [...workspaces, created];
        choose(created.id);
        // The form that had the focus is gone: the picker, which now names the new workspace, takes it.
        select.focus();
        notify(`Workspace “${created.name}” created.`, 'success', { near: select });
      } catch (error) {
        reportError(error, form);
      }
    });
  });

  return {
    /** Fetches the signed-in wallet's workspaces and selects the one in the URL, or the first. */
    async load() {
      ({ workspaces } = await api.get<WorkspaceList>('/portal/api/workspaces'));
      choose(selectedId());
    },
    /** After the profile was saved elsewhere: new name and description, same selection. */
    update(changed) {
      workspaces = workspaces.map((w) => (w.id === changed.id ? changed : w));
      if (selected?.id === changed.id) selected = changed;
      render();
    },
    reset() {
      workspaces = [];
      selected = undefined;
      form.reset();
      updateCounter();
      show(createCard, false);
    },
  };
}
