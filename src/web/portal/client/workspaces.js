/* global window, history, URL */
// The workspace selector, the create-workspace form and the selected workspace's details.
import { api } from './api.js';
import { bindCounter, busy, byId, copyFrom, el, fieldError, formError, notify, reportError, show } from './dom.js';

/** `onSelect(workspace | undefined)` runs whenever the selected workspace changes. */
export function createWorkspacesView({ onSelect }) {
  const select = byId('workspace-select');
  const createCard = byId('workspace-create');
  const form = byId('workspace-form');
  const description = byId('workspace-description-input');
  const updateCounter = bindCounter(description, byId('workspace-description-count'));
  let workspaces = [];
  let selected;

  const selectedId = () => new URL(window.location.href).searchParams.get('workspace');
  const remember = (id) => {
    const url = new URL(window.location.href);
    if (id) url.searchParams.set('workspace', id);
    else url.searchParams.delete('workspace');
    history.replaceState(null, '', url);
  };

  function openCreate(open) {
    show(createCard, open);
    formError(form);
    if (open) form.elements.name.focus();
  }

  function render() {
    select.replaceChildren(
      ...workspaces.map((w) => el('option', { value: w.id, selected: w.id === selected?.id }, w.name)),
    );
    show(select.parentElement, workspaces.length > 0);
    if (selected) {
      byId('workspace-title').textContent = selected.name;
      byId('workspace-description').textContent = selected.description;
      show(byId('workspace-description'), selected.description !== '');
      byId('workspace-id').textContent = selected.id;
      byId('workspace-wallet').textContent = selected.wallet;
      byId('workspace-api-base').textContent = `${window.location.origin}/w/${selected.id}/v1`;
    }
    // With no workspace yet, creating one is the only thing to do.
    if (workspaces.length === 0) openCreate(true);
    byId('cancel-create-workspace').hidden = workspaces.length === 0;
  }

  function choose(id) {
    selected = workspaces.find((w) => w.id === id) ?? workspaces[0];
    remember(selected?.id);
    render();
    onSelect(selected);
  }

  select.addEventListener('change', () => choose(select.value));
  byId('show-create-workspace').addEventListener('click', () => openCreate(true));
  byId('cancel-create-workspace').addEventListener('click', () => openCreate(false));
  for (const button of byId('workspace').querySelectorAll('[data-copy-from]')) {
    button.addEventListener('click', () => copyFrom(byId(button.dataset.copyFrom), button));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = form.elements.name.value.trim();
    const text = description.value.trim();
    formError(form);
    if (name === '') return fieldError(form.elements.name, 'Give the workspace a name.');
    if (!updateCounter())
      return fieldError(description, `The description is too long: at most ${description.dataset.max} characters.`);
    busy(form.querySelector('[type=submit]'), async () => {
      try {
        const created = await api.post('/portal/api/workspaces', text === '' ? { name } : { name, description: text });
        form.reset();
        updateCounter();
        openCreate(false);
        workspaces = [...workspaces, created];
        choose(created.id);
        // The form that had the focus is gone: the picker, which now names the new workspace, takes it.
        select.focus();
        notify(`Workspace “${created.name}” created.`, 'success');
      } catch (error) {
        reportError(error, form);
      }
    });
  });

  return {
    /** Fetches the signed-in wallet's workspaces and selects the one in the URL, or the first. */
    async load() {
      ({ workspaces } = await api.get('/portal/api/workspaces'));
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
