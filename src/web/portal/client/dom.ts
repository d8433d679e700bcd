// Tiny DOM helpers. Text always goes in as text nodes, never as markup, so nothing from the API can inject HTML.
import type { ApiError } from './api.js';
import type { Workspace } from './api-types.js';
import { byId } from '../../shared/client/dom.js';
import { ids } from '../portal.ids.js';

export { byId };

/** A child of `el`: text, a node, or nothing (left out). */
export type Child = Node | string | undefined | null | false;
/** Attributes of `el`: `class`, `on<event>` handlers, and attributes (true is present, false or nothing absent). */
export type Props = Readonly<Record<string, string | number | boolean | undefined | null | ((event: Event) => void)>>;

/** document.createElement with attributes, `class`, `on<event>` handlers and children (strings or nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | readonly Child[])[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (typeof value === 'function') node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((child) => child !== undefined && child !== null && child !== false));
  return node;
}

export function show(node: HTMLElement, visible = true): void {
  node.hidden = !visible;
}

/** A form control: what `field` returns and `fieldError` marks. */
export type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The control named `name` of `form`; a missing one is a bug in the page's markup, so it throws. */
export function field(form: HTMLFormElement, name: string): Field {
  const node = form.elements.namedItem(name);
  if (node instanceof HTMLInputElement || node instanceof HTMLSelectElement || node instanceof HTMLTextAreaElement)
    return node;
  throw new Error(`The form #${form.id} has no field ${name}.`);
}

/** The submit button of `form`. */
export function submitButton(form: HTMLFormElement): HTMLButtonElement {
  const button = form.querySelector('[type=submit]');
  if (!(button instanceof HTMLButtonElement)) throw new Error(`The form #${form.id} has no submit button.`);
  return button;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const secondsFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** An ISO timestamp as people read it, to the minute. */
export const formatTime = (iso: string): string => dateFormat.format(new Date(iso));

/**
 * A <time> for an ISO timestamp, or `fallback` text when there is none; `seconds` where events follow
 * each other within a minute (webhook attempts).
 */
export function timeEl(iso: string | null | undefined, fallback = '—', { seconds = false } = {}): HTMLElement {
  if (!iso) return el('span', { class: 'muted' }, fallback);
  return el('time', { datetime: iso, title: iso }, (seconds ? secondsFormat : dateFormat).format(new Date(iso)));
}

export const shortAddress = (address: string): string => `${address.slice(0, 6)}…${address.slice(-4)}`;

/** How long a success or info notice stays: long enough to read twice, short enough not to go stale. */
const NOTICE_FADES_AFTER_MS = 8000;
/** The notice on screen, wherever it is: a newer one replaces it, so there is never more than one. */
let shownNotice: HTMLElement | undefined;
let noticeTimer: number | undefined;

/**
 * Says `message` next to `near`, the control it is about (a form, a button), or at the top of the page
 * when no control caused it (a panel that failed to load, a failed start). Replaces the notice shown
 * before, wherever it was; `undefined` only removes that one. Errors stay until replaced; the others
 * go away after a few seconds. Near a control: inside its form, after its buttons; else after its row
 * of buttons, its table or its toolbar; else right after it.
 */
export function notify(
  message: string | undefined,
  kind: 'error' | 'info' | 'success' = 'error',
  { near }: { readonly near?: Element } = {},
): void {
  window.clearTimeout(noticeTimer);
  if (shownNotice?.id === ids.notice) show(shownNotice, false);
  else shownNotice?.remove();
  shownNotice = undefined;
  if (!message) return;
  const node = near ? noticeNear(near, kind) : byId(ids.notice);
  node.className = `notice ${kind}`;
  node.classList.toggle('beside', Boolean(near));
  shownNotice = node;
  show(node, true);
  // A live region announces changes made after it is in the page: a new one gets its words a frame later.
  const say = () => {
    node.textContent = message;
    if (kind === 'error') node.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  };
  if (near) window.requestAnimationFrame(say);
  else say();
  if (kind !== 'error') noticeTimer = window.setTimeout(() => notify(undefined), NOTICE_FADES_AFTER_MS);
}

/** An empty notice placed by `control` (see `notify`), announced as an alert for errors, politely otherwise. */
function noticeNear(control: Element, kind: 'error' | 'info' | 'success'): HTMLElement {
  const node = el('p', { role: kind === 'error' ? 'alert' : 'status' });
  const form = control.closest('form');
  if (form) form.append(node);
  else (control.closest('.actions, .table-wrap, .toolbar') ?? control).after(node);
  return node;
}

/**
 * Shows an error from the API or the wallet next to `near`, the control whose action failed: next to
 * the field it concerns when `near` is (in) a form and the error names one of its fields, else as that
 * control's notice; without `near`, at the top of the page. A lost session is skipped: the sign-in
 * screen that replaced the portal already says so.
 */
export function reportError(error: unknown, near?: Element): void {
  const failure = error as Partial<Pick<ApiError, 'sessionLost' | 'code' | 'message' | 'details'>> | null | undefined;
  if (failure?.sessionLost) return;
  const form = near?.closest('form');
  const field = form ? fieldOf(form, failure) : undefined;
  const plain = typeof failure?.code === 'string' ? PLAIN_MESSAGES[failure.code] : undefined;
  const message = plain
    ? plain(example(field), { ...failure, value: valueOf(field) })
    : (failure?.message ?? String(error));
  if (!field) return notify(message, 'error', { near });
  notify(undefined);
  fieldError(field, message);
}

/** " like <the field's placeholder>", the example the page shows in the field, or nothing. */
const example = (field: HTMLElement | undefined): string =>
  (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) && field.placeholder
    ? ` like ${field.placeholder}`
    : '';

/** What the field holds, for messages that depend on it. */
const valueOf = (field: HTMLElement | undefined): string =>
  field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement ? field.value.trim() : '';

/** The answer as a message needs it: its extra fields (e.g. `maxInvoiceAmount`) and the field's value. */
type Refusal = Readonly<Record<string, unknown>> & { readonly value: string };

/**
 * What to do, in the merchant's words, for API error codes whose message is written for developers
 * (field names, patterns, endpoints); each gets the field's example. Other codes keep the service's message.
 */
const PLAIN_MESSAGES: Readonly<Record<string, (like: string, refusal: Refusal) => string>> = {
  invalid_amount: (_like, { value }) =>
    /^[0.,]+$/.test(value)
      ? 'Enter an amount of more than 0, like 12.50.'
      : 'Enter an amount like 12.50, with at most 6 decimals.',
  amount_too_large: (_like, { maxInvoiceAmount }) =>
    typeof maxInvoiceAmount === 'string'
      ? `Enter at most ${formatAmount(maxInvoiceAmount)} USDC: that is the largest invoice the service accepts.`
      : 'This amount is above the largest invoice the service accepts.',
  external_id_too_long: () => 'The order reference is too long: shorten it to at most 128 characters.',
  invalid_return_url: (like) => `Enter an https address${like}.`,
  return_origin_not_allowed: () =>
    'This address is not on one of your checkout return origins: add its origin under Settings first.',
  invalid_origin: (like) => `Enter an origin${like}: one per line, without a path or port.`,
  invalid_webhook_endpoint: (like) => `Enter a public https address${like}.`,
  insufficient_credits: () => 'This workspace does not have enough credits for that. Buy more under Billing.',
  description_too_long: () => 'The description is too long: shorten it.',
  invalid_support_contact: (like) =>
    `Enter an email address${like}, or the https address of your help page, without a user name or password.`,
  invalid_accent_color: () => 'Choose a colour, or tick “No accent colour”.',
};

/** The field an answer without `details` concerns, by its error code. */
const FIELD_OF_CODE: Readonly<Record<string, string>> = {
  invalid_amount: 'amount',
  amount_too_large: 'amount',
  external_id_too_long: 'externalId',
  invalid_origin: 'origins',
  invalid_webhook_endpoint: 'endpoint',
  description_too_long: 'description',
  invalid_support_contact: 'supportContact',
  invalid_accent_color: 'accentColor',
  invalid_description: 'description',
};

/**
 * The input of `form` an API error concerns: the first segment of its first `details[].path`
 * (`origins.0` is the origins field), else the field its code is about, else the field its message
 * starts with (`successUrl must be…`). Undefined for errors about no field of this form.
 */
function fieldOf(
  form: HTMLFormElement,
  error: Partial<Pick<ApiError, 'code' | 'message' | 'details'>> | null | undefined,
): HTMLElement | undefined {
  const candidates = [
    error?.details?.[0]?.path?.split('.')[0],
    typeof error?.code === 'string' ? FIELD_OF_CODE[error.code] : undefined,
    /^(\w+) /.exec(error?.message ?? '')?.[1],
  ];
  for (const name of candidates) {
    const field = name && form.elements.namedItem(name);
    if (field instanceof HTMLElement && field.id) return field;
  }
  return undefined;
}

/** Shows `message` right after `field`, marks it invalid and tells screen readers why. */
export function fieldError(field: HTMLElement, message: string): void {
  const id = `${field.id}-error`;
  let node = document.getElementById(id);
  if (!node) {
    node = el('p', { id, class: 'field-error' });
    field.after(node);
  }
  node.textContent = message;
  show(node, true);
  field.setAttribute('aria-invalid', 'true');
  const described = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
  if (!described.includes(id)) field.setAttribute('aria-describedby', [id, ...described].join(' '));
  field.focus();
}

/** Removes the field errors of `form`, and the marks they left on their fields. */
function clearFieldErrors(form: HTMLFormElement): void {
  for (const field of form.querySelectorAll('[aria-invalid="true"]')) {
    const id = `${field.id}-error`;
    field.removeAttribute('aria-invalid');
    const described = (field.getAttribute('aria-describedby') ?? '').split(' ').filter((part) => part && part !== id);
    if (described.length > 0) field.setAttribute('aria-describedby', described.join(' '));
    else field.removeAttribute('aria-describedby');
    document.getElementById(id)?.remove();
  }
}

/**
 * Shows `message` as the notice of `form`. Without a message the form starts over: the page's notice,
 * stale once anything is submitted again, and every field error of `form` are cleared.
 */
export function formError(form: HTMLFormElement, message?: string): void {
  if (!message) clearFieldErrors(form);
  notify(message, 'error', { near: form });
}

/** Disables `button` while `work` runs, so a slow request cannot be sent twice. */
export async function busy<T>(button: HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  button.disabled = true;
  button.setAttribute('aria-busy', 'true');
  try {
    return await work();
  } finally {
    button.disabled = false;
    button.removeAttribute('aria-busy');
  }
}

/**
 * Copies the text of `source` and says so on `button`. The Clipboard API needs a secure context
 * (https or localhost); elsewhere the text is selected so the person can press Ctrl+C.
 */
export async function copyFrom(source: HTMLElement, button: HTMLElement): Promise<void> {
  const text = source.textContent ?? '';
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    const range = document.createRange();
    range.selectNodeContents(source);
    window.getSelection()?.removeAllRanges();
    window.getSelection()?.addRange(range);
    button.textContent = 'Selected: press Ctrl+C';
  }
  window.setTimeout(() => {
    button.textContent = label;
  }, 2000);
}

/** "12.500000" (the API's form) → "12.50": at least two decimals, no trailing zeros beyond. Text only, no float. */
export function formatAmount(amount: string): string {
  const [whole, fraction = ''] = String(amount).split('.');
  return `${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
}

/** Replaces the content of a <dl> with [term, description] pairs; descriptions that are undefined are left out. */
export function fillFacts(dl: HTMLElement, pairs: readonly (readonly [string, Child | readonly Child[]])[]): void {
  dl.replaceChildren(
    ...pairs
      .filter(([, value]) => value !== undefined)
      .flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value ?? '—')]),
  );
}

export const badge = (status: string): HTMLElement => el('span', { class: `badge ${status}` }, status);

/** Characters as the server's maxLength counts them (code points), shown live next to a textarea. */
export function bindCounter(textarea: HTMLTextAreaElement, counter: HTMLElement): () => boolean {
  const max = Number(textarea.dataset.max);
  const update = () => {
    const used = [...textarea.value].length;
    counter.textContent = `${used} / ${max}`;
    counter.classList.toggle('over', used > max);
    return used <= max;
  };
  textarea.addEventListener('input', update);
  return update;
}

/** A failed webhook attempt in words: the receiver's status when it answered, else the safe error category. */
export const attemptError = (attempt: {
  readonly statusCode?: number | null;
  readonly error?: string | null;
}): string => (attempt.statusCode ? `HTTP ${attempt.statusCode}` : (attempt.error ?? 'failed').replaceAll('_', ' '));

/** One page of a list, as `pagedList` wants it: the items and the cursor of the next page (null: no more). */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

/**
 * A list with "show older" paging: `load(workspace)` fetches the first page; the `more` button appends
 * the next page of the workspace last loaded.
 */
export function pagedList<T>({
  rows,
  more,
  status,
  fetchPage,
  render,
  empty,
}: {
  readonly rows: HTMLElement;
  readonly more: HTMLButtonElement;
  readonly status: HTMLElement;
  readonly fetchPage: (workspace: Workspace, cursor: string | null) => Promise<Page<T>>;
  readonly render: (item: T) => Node;
  readonly empty: string;
}): { load(workspace: Workspace, append?: boolean): Promise<void>; reset(): void } {
  let cursor: string | null = null;
  let generation = 0;
  let loaded: Workspace | undefined;
  // The button shows only once a page was loaded, so there is always a workspace to page on.
  more.addEventListener('click', () =>
    busy(more, async () => {
      if (loaded) await load(loaded, true).catch((error: unknown) => reportError(error, more));
    }),
  );
  async function load(workspace: Workspace, append = false): Promise<void> {
    const mine = ++generation;
    loaded = workspace;
    if (!append) cursor = null;
    const page = await fetchPage(workspace, cursor);
    if (mine !== generation) return;
    if (append) rows.append(...page.items.map(render));
    else rows.replaceChildren(...page.items.map(render));
    cursor = page.nextCursor;
    show(more, cursor !== null);
    status.textContent = rows.children.length > 0 ? '' : empty;
  }
  return { load, reset: () => rows.replaceChildren() };
}
