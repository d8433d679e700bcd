/* global window, history, URL */
// The workspace selector, the create-workspace form and the selected workspace's details.
import { api } from './api.js';
import { busy, byId, copyFrom, el, formError, notify, reportError, show } from './dom.js';

const codePoints = (text) => [...text].length; // what the server's maxLength counts

/** `onSelect(workspace | undefined)` runs whenever the selected workspace changes. */
export function createWorkspacesView({ onSelect }) {
  const select = byId('workspace-select');
  const createCard = byId('workspace-create');
  const form = byId('workspace-form');
  const description = byId('workspace-description-input');
  const counter = byId('description-count');
  const maxDescription = Number(description.dataset.max);
  let workspaces = [];

  const selectedId = () => new URL(window.location.href).searchParams.get('workspace');
  const remember = (id) => {
    const url = new URL(window.location.href);
    if (id) url.searchParams.set('workspace', id);
    else url.searchParams.delete('workspace');
    history.replaceState(null, '', url);
  };

  function updateCounter() {
    const used = codePoints(description.value);
    counter.textContent = `${used} / ${maxDescription}`;
    counter.classList.toggle('over', used > maxDescription);
  }

  function openCreate(open) {
    show(createCard, open);
    formError(form);
    if (open) form.elements.name.focus();
  }

  function render(selected) {
    select.replaceChildren(...workspaces.map((w) => el('option', { value: w.id, selected: w.id === selected?.id }, w.name)));
    show(select.parentElement, workspaces.length > 0);
    show(byId('workspace'), Boolean(selected));
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
    const selected = workspaces.find((w) => w.id === id) ?? workspaces[0];
    remember(selected?.id);
    render(selected);
    onSelect(selected);
  }

  select.addEventListener('change', () => choose(select.value));
  byId('show-create-workspace').addEventListener('click', () => openCreate(true));
  byId('cancel-create-workspace').addEventListener('click', () => openCreate(false));
  description.addEventListener('input', updateCounter);
  for (const button of byId('workspace').querySelectorAll('[data-copy-from]')) {
    button.addEventListener('click', () => copyFrom(byId(button.dataset.copyFrom), button));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = form.elements.name.value.trim();
    const text = description.value.trim();
    if (name === '') return formError(form, 'Give the workspace a name.');
    if (codePoints(text) > maxDescription) return formError(form, `The description is too long: at most ${maxDescription} characters.`);
    formError(form);
    busy(form.querySelector('[type=submit]'), async () => {
      try {
        const created = await api.post('/portal/api/workspaces', text === '' ? { name } : { name, description: text });
        form.reset();
        updateCounter();
        openCreate(false);
        workspaces = [...workspaces, created];
        choose(created.id);
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
    reset() {
      workspaces = [];
      form.reset();
      updateCounter();
      show(createCard, false);
    },
  };
}
