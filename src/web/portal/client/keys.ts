// The selected workspace's API keys: table, revoke, create form with presets, one-time secret box.
import { api, workspacePath } from './api.js';
import type { ApiKey, ApiKeyList, NewApiKey, Workspace } from './api-types.js';
import { busy, byId, el, field, formError, notify, reportError, show, submitButton, timeEl } from './dom.js';
import { secretBox } from './secret.js';
import { ids } from '../portal.ids.js';

export function createKeysView(): { hideSecret(): void; show(selected: Workspace | undefined): Promise<void> } {
  const card = byId(ids.keys);
  const body = byId(ids.keysBody);
  const form = byId(ids.keyForm, HTMLFormElement);
  const boxes = [...form.querySelectorAll<HTMLInputElement>('input[name=permissions]')];
  const presets = [...form.querySelectorAll<HTMLElement>('[data-preset]')];
  const secret = secretBox('key');
  let workspace: Workspace | undefined;
  // Bumped on every workspace switch, so a slow answer for the previous workspace is dropped.
  let generation = 0;

  const chosen = () => boxes.filter((box) => box.checked).map((box) => box.value);

  function syncPresets(): void {
    const current = chosen().sort().join(' ');
    for (const button of presets)
      button.setAttribute(
        'aria-pressed',
        String((button.dataset.preset ?? '').split(' ').sort().join(' ') === current),
      );
  }

  function row(key: ApiKey): HTMLElement {
    const active = key.status === 'active';
    const revoke = active ? el('button', { type: 'button', class: 'danger small' }, 'Revoke') : undefined;
    revoke?.addEventListener('click', () => revokeKey(key, revoke));
    return el(
      'tr',
      { class: active ? '' : 'revoked' },
      el('td', { 'data-label': 'Name' }, el('strong', {}, key.name)),
      el('td', { 'data-label': 'Prefix' }, el('code', { class: 'nowrap' }, `${key.prefix}…`)),
      el(
        'td',
        { 'data-label': 'Permissions' },
        el(
          'span',
          { class: 'chips' },
          key.permissions.map((p) => el('code', { class: 'chip' }, p)),
        ),
      ),
      el(
        'td',
        { 'data-label': 'Status' },
        el(
          'span',
          { class: `badge ${key.status}`, title: key.revokedAt ? `Revoked ${key.revokedAt}` : undefined },
          key.status,
        ),
      ),
      el('td', { 'data-label': 'Created' }, timeEl(key.createdAt)),
      el('td', { 'data-label': 'Last used' }, timeEl(key.lastUsedAt, 'never')),
      el('td', { class: 'actions-cell' }, revoke),
    );
  }

  async function refresh(workspace: Workspace): Promise<void> {
    const mine = generation;
    const { keys } = await api.get<ApiKeyList>(workspacePath(workspace.id, 'keys'));
    if (mine !== generation) return;
    body.replaceChildren(...keys.map(row));
    show(byId(ids.keysEmpty), keys.length === 0);
  }

  async function revokeKey(key: ApiKey, button: HTMLButtonElement): Promise<void> {
    const question = `Revoke the key “${key.name}” (${key.prefix}…)?\n\nRequests that use it will be refused at once. This cannot be undone.`;
    if (!window.confirm(question)) return;
    const target = workspace;
    if (!target) return;
    await busy(button, async () => {
      try {
        await api.delete(workspacePath(target.id, 'keys', key.id));
        notify(`Key “${key.name}” revoked.`, 'success', { near: body });
        await refresh(target);
      } catch (error) {
        reportError(error, body);
      }
    });
  }

  for (const button of presets) {
    button.addEventListener('click', () => {
      const wanted = new Set((button.dataset.preset ?? '').split(' '));
      for (const box of boxes) box.checked = wanted.has(box.value);
      syncPresets();
    });
  }
  for (const box of boxes) box.addEventListener('change', syncPresets);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = field(form, 'name').value.trim();
    const permissions = chosen();
    if (name === '') return formError(form, 'Give the key a name, e.g. the server that will use it.');
    if (permissions.length === 0) return formError(form, 'Choose at least one permission, or a preset.');
    formError(form);
    const target = workspace;
    if (!target) return;
    busy(submitButton(form), async () => {
      try {
        const created = await api.post<NewApiKey>(workspacePath(target.id, 'keys'), { name, permissions });
        if (target !== workspace) return;
        form.reset();
        syncPresets();
        secret.reveal(created.secret);
        await refresh(target);
      } catch (error) {
        reportError(error, form);
      }
    });
  });

  return {
    hideSecret: secret.hide,
    /** Shows the keys of `selected`, or hides the section when there is no workspace. */
    async show(selected) {
      generation += 1;
      workspace = selected;
      secret.hide();
      formError(form);
      body.replaceChildren();
      show(card, Boolean(selected));
      if (selected) await refresh(selected);
    },
  };
}
