// The "Received" tab: transfers to the workspace wallet that paid no invoice by themselves, with a status
// filter and older pages, and on each unmatched one "Apply to invoice" and "Dismiss". The forms open
// under the row they act on; a short transfer pays an invoice only after the person agreed to the shortfall.
import { ApiError, api, workspacePath } from './api.js';
import type { Invoice, InvoiceList, ReceivedTransfer, ReceivedTransferList, Workspace } from './api-types.js';
import {
  badge,
  busy,
  byId,
  el,
  field,
  fieldError,
  formError,
  formatAmount,
  notify,
  reportError,
  shortAddress,
  show,
  submitButton,
  timeEl,
} from './dom.js';
import { amountFit, appliedWords, reasonWords, shortfallQuestion } from './received-words.js';
import { ids } from '../portal.ids.js';

const PAGE = 25;
/** The most open invoices the apply form offers (the list's `limit` maximum). */
const OPEN_INVOICES = 200;

/** What the list says when the chosen filter finds nothing. */
const EMPTY: Readonly<Record<string, string>> = {
  unmatched: 'Nothing to resolve: every transfer to your wallet so far paid its invoice by itself.',
  applied: 'No received transfer has been applied to an invoice yet.',
  dismissed: 'No received transfer has been dismissed.',
  '': 'No received transfers yet.',
};

const shortHash = (hash: string) => `${hash.slice(0, 8)}…${hash.slice(-6)}`;
const amountOf = (transfer: ReceivedTransfer) => `${formatAmount(transfer.amount)} USDC`;

/** `onChange()` runs after an apply or a dismiss: the unmatched count of the issues banner moved. */
export function createReceivedView({ onChange }: { readonly onChange: () => void }): {
  show(selected: Workspace): Promise<void>;
} {
  const rows = byId(ids.receivedRows);
  const more = byId(ids.receivedMore, HTMLButtonElement);
  const status = byId(ids.receivedListStatus);
  const filters = byId(ids.receivedFilters, HTMLFieldSetElement);
  const resolve = byId(ids.receivedResolve);
  const resolveHome = resolve.parentElement!;
  const applyForm = byId(ids.receivedApplyForm, HTMLFormElement);
  const dismissForm = byId(ids.receivedDismissForm, HTMLFormElement);
  const invoiceSelect = byId(ids.receivedInvoice, HTMLSelectElement);
  const invoiceHint = byId(ids.receivedInvoiceHint);
  // The forms' place in the table: a full-width row right under the transfer's own.
  const resolveRow = el('tr', { class: 'resolve-row' }, el('td', { colspan: 6 }));
  let workspace: Workspace | undefined;
  let cursor: string | null = null;
  // Bumped by every new listing, so a slow answer for an older one is dropped.
  let generation = 0;
  /** Invoice numbers by id, for the words of each row (read once per workspace). */
  const numbers = new Map<string, string>();
  /** The transfer whose form is open, the open invoices its apply form offers, the button that opened it. */
  let resolving: ReceivedTransfer | undefined;
  let openInvoices = new Map<string, Invoice>();
  let opener: HTMLElement | undefined;

  const statusFilter = (): string => filters.querySelector<HTMLInputElement>('input[name=status]:checked')?.value ?? '';
  const shownRows = () => rows.querySelectorAll('tr[data-transfer-id]').length;
  const rowOf = (id: string): HTMLElement | undefined =>
    Array.from(rows.querySelectorAll<HTMLElement>('tr[data-transfer-id]')).find((tr) => tr.dataset.transferId === id);

  /** The status, the invoice it paid or the note it was dismissed with, and on an unmatched one its two actions. */
  function statusCell(transfer: ReceivedTransfer): HTMLElement {
    const paid = transfer.appliedInvoiceId;
    // One wrapper per cell: on a phone the cell is a grid of its label and one value.
    return el(
      'td',
      { 'data-label': 'Status' },
      el(
        'div',
        {},
        badge(transfer.status),
        paid && [' paid ', el('a', { href: `#invoice/${paid}` }, numbers.get(paid) ?? 'the invoice')],
        transfer.note && el('div', { class: 'muted' }, transfer.note),
        transfer.status === 'unmatched' && actions(transfer),
      ),
    );
  }

  function actions(transfer: ReceivedTransfer): HTMLElement {
    const label = `${amountOf(transfer)} from ${shortAddress(transfer.from)}`;
    const button = (text: string, open: typeof openApply) =>
      el(
        'button',
        {
          type: 'button',
          class: 'secondary small',
          'aria-label': `${text}: ${label}`,
          onclick: (event: Event) => open(transfer, event.currentTarget as HTMLElement),
        },
        text,
      );
    return el('div', { class: 'row-actions' }, button('Apply to invoice', openApply), button('Dismiss', openDismiss));
  }

  const row = (transfer: ReceivedTransfer): HTMLElement =>
    el(
      'tr',
      { 'data-transfer-id': transfer.id },
      el('td', { 'data-label': 'Amount', class: 'num' }, amountOf(transfer)),
      el(
        'td',
        { 'data-label': 'From' },
        el('code', { class: 'nowrap', title: transfer.from }, shortAddress(transfer.from)),
      ),
      el('td', { 'data-label': 'Received' }, timeEl(transfer.blockTime)),
      el(
        'td',
        { 'data-label': 'Why it paid nothing' },
        reasonWords(transfer, (id) => numbers.get(id)),
      ),
      el(
        'td',
        { 'data-label': 'Transaction' },
        el(
          'div',
          {},
          el('code', { class: 'nowrap', title: transfer.transactionHash }, shortHash(transfer.transactionHash)),
          el('div', { class: 'muted' }, transfer.network),
        ),
      ),
      statusCell(transfer),
    );

  /** Reads the numbers of the invoices the transfers name that this page does not know yet; none is fatal. */
  async function learnNumbers(target: Workspace, transfers: readonly ReceivedTransfer[]): Promise<void> {
    const unknown = new Set(
      transfers
        .flatMap((t) => [t.invoiceId, t.appliedInvoiceId])
        .filter((id): id is string => !!id && !numbers.has(id)),
    );
    await Promise.all(
      [...unknown].map((id) =>
        api
          .get<Invoice>(workspacePath(target.id, 'invoices', id))
          .then((invoice) => numbers.set(id, invoice.number))
          .catch(() => undefined),
      ),
    );
  }

  /** The first page (`append` false) or the next one. */
  async function load(append = false): Promise<void> {
    const mine = ++generation;
    const target = workspace;
    if (!target) return;
    if (!append) {
      cursor = null;
      status.textContent = 'Loading…';
    }
    const page = await api.get<ReceivedTransferList>(
      workspacePath(target.id, 'received-transfers', {
        status: statusFilter(),
        cursor: cursor ?? undefined,
        limit: PAGE,
      }),
    );
    await learnNumbers(target, page.receivedTransfers);
    if (mine !== generation) return;
    if (append) rows.append(...page.receivedTransfers.map(row));
    else {
      closeResolve();
      rows.replaceChildren(...page.receivedTransfers.map(row));
    }
    cursor = page.nextCursor;
    show(more, cursor !== null);
    // An empty table under "nothing to resolve" would read as a broken list: the message stands alone.
    show(byId(ids.receivedTable), shownRows() > 0);
    status.textContent = shownRows() > 0 ? '' : (EMPTY[statusFilter()] ?? EMPTY['']!);
  }

  const reload = () => load().catch((error) => reportError(error, filters));

  /** Opens the forms under the transfer's row, with `form` shown and the other hidden. */
  function openResolve(transfer: ReceivedTransfer, form: HTMLFormElement, title: string, button: HTMLElement): void {
    const at = rowOf(transfer.id);
    if (!at) return;
    resolving = transfer;
    opener = button;
    formError(applyForm);
    formError(dismissForm);
    byId(ids.receivedResolveTitle).textContent = title;
    resolveRow.firstElementChild!.append(resolve);
    at.after(resolveRow);
    show(applyForm, form === applyForm);
    show(dismissForm, form === dismissForm);
    show(resolve, true);
  }

  /** Closes the forms; `refocus` takes the keyboard back to the button that opened them. */
  function closeResolve(refocus = false): void {
    resolving = undefined;
    show(resolve, false);
    resolveHome.append(resolve);
    resolveRow.remove();
    if (refocus && opener?.isConnected) opener.focus();
  }

  function openDismiss(transfer: ReceivedTransfer, button: HTMLElement): void {
    dismissForm.reset();
    openResolve(transfer, dismissForm, `Dismiss ${amountOf(transfer)} from ${shortAddress(transfer.from)}`, button);
    field(dismissForm, 'note').focus();
  }

  function openApply(transfer: ReceivedTransfer, button: HTMLElement): void {
    openResolve(
      transfer,
      applyForm,
      `Apply ${amountOf(transfer)} from ${shortAddress(transfer.from)} to an invoice`,
      button,
    );
    fillInvoices(transfer).catch((error) => reportError(error, applyForm));
  }

  /**
   * Offers the open invoices, those of the transfer's very amount first, with the one the transfer was
   * meant for chosen when it is open.
   */
  async function fillInvoices(transfer: ReceivedTransfer): Promise<void> {
    const target = workspace;
    if (!target) return;
    const submit = submitButton(applyForm);
    invoiceSelect.replaceChildren();
    invoiceSelect.disabled = true;
    submit.disabled = true;
    invoiceHint.textContent = 'Loading open invoices…';
    const { invoices } = await api.get<InvoiceList>(
      workspacePath(target.id, 'invoices', { status: 'open', limit: OPEN_INVOICES }),
    );
    if (resolving !== transfer) return;
    openInvoices = new Map(invoices.map((invoice) => [invoice.id, invoice]));
    for (const invoice of invoices) numbers.set(invoice.id, invoice.number);
    const option = (invoice: Invoice) =>
      el(
        'option',
        { value: invoice.id },
        `${invoice.number} — ${formatAmount(invoice.amount)} USDC${invoice.externalId ? ` — ${invoice.externalId}` : ''}`,
      );
    const same = invoices.filter((invoice) => amountFit(transfer.amount, invoice.amount).kind === 'exact');
    const other = invoices.filter((invoice) => !same.includes(invoice));
    invoiceSelect.replaceChildren(
      ...(same.length > 0 ? [el('optgroup', { label: 'Same amount' }, same.map(option))] : []),
      ...(other.length > 0 ? [el('optgroup', { label: 'Other amounts' }, other.map(option))] : []),
    );
    const meant = transfer.invoiceId;
    if (meant && openInvoices.has(meant)) invoiceSelect.value = meant;
    invoiceHint.textContent = invoiceHintWords(transfer, invoices.length > 0);
    invoiceSelect.disabled = invoices.length === 0;
    submit.disabled = invoices.length === 0;
    if (invoices.length > 0) invoiceSelect.focus();
  }

  function invoiceHintWords(transfer: ReceivedTransfer, anyOpen: boolean): string {
    const meant = transfer.invoiceId;
    const closed =
      meant && !openInvoices.has(meant)
        ? `${numbers.get(meant) ?? 'The invoice it was meant for'} is no longer open: renew it in the Invoices tab to apply this transfer to it. `
        : '';
    if (!anyOpen) return `${closed}No invoice is open. Create one in the Invoices tab, then come back.`;
    return `${closed}Only open invoices can be paid. A transfer short of the invoice's amount asks before it marks it paid.`;
  }

  /** The transfer is resolved: its row shows so, the forms close, the banner catches up. */
  function resolved(updated: ReceivedTransfer, message: string, kind: 'success' | 'error' = 'success'): void {
    closeResolve();
    const fresh = row(updated);
    rowOf(updated.id)?.replaceWith(fresh);
    // The form is gone with its row's resolution: the notice goes under the table the row is in.
    notify(message, kind, { near: rows });
    // The form's button is gone: the keyboard goes on from the row (its invoice link) or the list's heading.
    const next = fresh.querySelector<HTMLElement>('a') ?? rows.closest('section')?.querySelector<HTMLElement>('h2');
    if (next && !next.matches('a')) next.tabIndex = -1;
    next?.focus({ preventScroll: true });
    onChange();
  }

  /**
   * A refused apply or dismiss. Resolved meanwhile (in another tab, through the API): the row shows it as
   * it is now, with the service's words under the list; any other refusal stays in the form.
   */
  async function refused(target: Workspace, transfer: ReceivedTransfer, error: unknown, form: HTMLFormElement) {
    if (!(error instanceof ApiError && error.code === 'received_transfer_resolved')) return reportError(error, form);
    const current = await api
      .get<ReceivedTransfer>(workspacePath(target.id, 'received-transfers', transfer.id))
      .catch(() => undefined);
    if (!current || workspace?.id !== target.id) return reportError(error, form);
    await learnNumbers(target, [current]);
    resolved(current, error.message, 'error');
  }

  applyForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const transfer = resolving;
    const target = workspace;
    if (!transfer || !target) return;
    formError(applyForm);
    const invoice = openInvoices.get(invoiceSelect.value);
    if (!invoice) return fieldError(invoiceSelect, 'Choose the invoice this transfer pays.');
    const short = amountFit(transfer.amount, invoice.amount).kind === 'short';
    if (short && !window.confirm(shortfallQuestion(transfer.amount, invoice))) return;
    busy(submitButton(applyForm), async () => {
      try {
        const applied = await api.post<ReceivedTransfer>(
          workspacePath(target.id, 'received-transfers', transfer.id, 'apply'),
          { invoiceId: invoice.id, ...(short && { acceptShortfall: true }) },
        );
        resolved(applied, appliedWords(transfer.amount, invoice));
      } catch (error) {
        await refused(target, transfer, error, applyForm);
      }
    });
  });

  dismissForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const transfer = resolving;
    const target = workspace;
    if (!transfer || !target) return;
    formError(dismissForm);
    const note = field(dismissForm, 'note').value.trim();
    busy(submitButton(dismissForm), async () => {
      try {
        const dismissed = await api.post<ReceivedTransfer>(
          workspacePath(target.id, 'received-transfers', transfer.id, 'dismiss'),
          note ? { note } : {},
        );
        resolved(dismissed, `The transfer of ${amountOf(transfer)} from ${shortAddress(transfer.from)} is dismissed.`);
      } catch (error) {
        await refused(target, transfer, error, dismissForm);
      }
    });
  });

  for (const cancel of resolve.querySelectorAll('[data-resolve-cancel]'))
    cancel.addEventListener('click', () => closeResolve(true));
  resolve.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') closeResolve(true);
  });
  filters.addEventListener('change', reload);
  more.addEventListener('click', () => busy(more, () => load(true).catch((error) => reportError(error, more))));

  return {
    async show(selected) {
      if (selected.id !== workspace?.id) {
        closeResolve();
        numbers.clear();
        rows.replaceChildren();
        const first = filters.querySelector<HTMLInputElement>('input[name=status]');
        if (first) first.checked = true;
      }
      workspace = selected;
      await load();
    },
  };
}
