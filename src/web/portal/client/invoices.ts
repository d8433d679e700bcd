// The invoices panel: the list, status filters, exact search, older pages, CSV export and the create form.
// The list shows each change of a shown invoice as it happens (invoices-live.ts).
import { ApiError, api, idempotentCreate, workspacePath } from './api.js';
import type { Invoice, InvoiceList, InvoiceSearch, Workspace } from './api-types.js';
import {
  badge,
  busy,
  byId,
  el,
  field,
  fieldError,
  formError,
  formatAmount,
  reportError,
  show,
  submitButton,
  timeEl,
} from './dom.js';
import { followInvoices } from './invoices-live.js';
import { ids } from '../portal.ids.js';

const PAGE = 25;
/** The most invoices one answer of the list, and of the search, holds (their `limit` maximum). */
const MAX_LIST_LIMIT = 200;
const MAX_SEARCH_LIMIT = 100;

/** What a row shows of an invoice: a row whose invoice still reads the same is left as it is. */
const shownOf = (invoice: Invoice): string =>
  JSON.stringify([
    invoice.number,
    invoice.amount,
    invoice.status,
    invoice.externalId,
    invoice.createdAt,
    invoice.expiresAt,
  ]);

/**
 * The POST /invoices fields of a form (the invoice form, an automation's template): empty optional
 * fields are left out rather than sent empty, which the API would refuse.
 */
export function invoiceFields(form: HTMLFormElement): InvoiceFields {
  const optional = ['externalId', 'description', 'network', 'successUrl', 'cancelUrl']
    .map((name) => [name, field(form, name).value.trim()] as const)
    .filter(([, value]) => value !== '');
  return {
    amount: field(form, 'amount').value.trim(),
    expiresIn: Number(field(form, 'expiresIn').value),
    ...Object.fromEntries(optional),
  };
}

/** The body of POST /invoices a form describes (and an automation's `template`). */
export interface InvoiceFields {
  readonly amount: string;
  readonly expiresIn: number;
  readonly externalId?: string;
  readonly description?: string;
  readonly network?: string;
  readonly successUrl?: string;
  readonly cancelUrl?: string;
}

/** `onCreated(invoice)` runs after the create form made one. */
export function createInvoicesView({ onCreated }: { readonly onCreated: (invoice: Invoice) => void }): {
  startCreate(): void;
  show(selected: Workspace): Promise<void>;
} {
  const rows = byId(ids.invoiceRows);
  const more = byId(ids.invoiceMore, HTMLButtonElement);
  const status = byId(ids.invoiceListStatus);
  const searchForm = byId(ids.invoiceSearch, HTMLFormElement);
  const filters = byId(ids.invoiceFilters, HTMLFieldSetElement);
  const clear = byId(ids.invoiceSearchClear);
  const form = byId(ids.invoiceForm, HTMLFormElement);
  let workspace: Workspace | undefined;
  let query = ''; // a search replaces the status filter until cleared
  let cursor: string | null = null;
  // Bumped by every new listing, so a slow answer for an older one is dropped.
  let generation = 0;
  /** The listing under way, if any (settled either way). */
  let listing: Promise<void> = Promise.resolve();
  /** The latest read of each invoice re-read on its own, so that an older answer never replaces a newer one. */
  const rowReads = new Map<string, number>();
  let rowReadCount = 0;
  const shownAs = new WeakMap<Element, string>();

  const statusFilter = (): string => filters.querySelector<HTMLInputElement>('input[name=status]:checked')?.value ?? '';

  const row = (invoice: Invoice) => {
    const tr = el(
      'tr',
      { 'data-invoice-id': invoice.id },
      el('td', { 'data-label': 'Number' }, el('a', { href: `#invoice/${invoice.id}` }, invoice.number)),
      el('td', { 'data-label': 'Amount', class: 'num' }, `${formatAmount(invoice.amount)} USDC`),
      el('td', { 'data-label': 'Status' }, badge(invoice.status)),
      el('td', { 'data-label': 'Order reference' }, invoice.externalId ?? el('span', { class: 'muted' }, '—')),
      el('td', { 'data-label': 'Created' }, timeEl(invoice.createdAt)),
      el('td', { 'data-label': 'Deadline' }, timeEl(invoice.expiresAt)),
    );
    shownAs.set(tr, shownOf(invoice));
    return tr;
  };

  const rowOf = (invoiceId: string): HTMLElement | undefined =>
    Array.from(rows.children as HTMLCollectionOf<HTMLElement>).find((tr) => tr.dataset.invoiceId === invoiceId);

  /** Replaces the invoice's row if it is shown and reads differently now; the focus stays on it. */
  function replaceRow(invoice: Invoice): void {
    const old = rowOf(invoice.id);
    if (!old || shownAs.get(old) === shownOf(invoice)) return;
    const focused = old.contains(document.activeElement);
    const fresh = row(invoice);
    old.replaceWith(fresh);
    if (focused) fresh.querySelector('a')?.focus({ preventScroll: true });
  }

  /** Shows a listing: rows of the same invoices in the same order are kept unless they changed. */
  function render(invoices: readonly Invoice[], append: boolean): void {
    if (append) return rows.append(...invoices.map(row));
    const shown = Array.from(rows.children as HTMLCollectionOf<HTMLElement>);
    if (shown.length === invoices.length && invoices.every((invoice, i) => shown[i]?.dataset.invoiceId === invoice.id))
      return invoices.forEach(replaceRow);
    const focused = rows.contains(document.activeElement)
      ? document.activeElement?.closest<HTMLElement>('tr')?.dataset.invoiceId
      : undefined;
    rows.replaceChildren(...invoices.map(row));
    if (focused) rowOf(focused)?.querySelector('a')?.focus({ preventScroll: true });
  }

  /** The first page (`append` false) or the next one; `quiet` reads without saying "Loading…". */
  function load(append = false, { quiet = false, limit = PAGE } = {}): Promise<void> {
    const work = list(append, quiet, limit);
    listing = work.catch(() => {});
    return work;
  }

  async function list(append: boolean, quiet: boolean, limit: number): Promise<void> {
    const mine = ++generation;
    const target = workspace;
    if (!target) return;
    if (!append) cursor = null;
    if (!quiet) status.textContent = 'Loading…';
    const page: InvoiceList | InvoiceSearch = query
      ? await api.get<InvoiceSearch>(
          workspacePath(target.id, 'invoice-search', { q: query, cursor: cursor ?? undefined, limit }),
        )
      : await api.get<InvoiceList>(
          workspacePath(target.id, 'invoices', { status: statusFilter(), cursor: cursor ?? undefined, limit }),
        );
    if (mine !== generation) return;
    render(page.invoices, append);
    cursor = page.nextCursor;
    show(more, cursor !== null);
    const shown = rows.children.length;
    // An empty table under "No invoices yet" would read as a broken list: the message stands alone.
    show(byId(ids.invoiceTable), shown > 0);
    status.textContent =
      shown > 0
        ? ''
        : query
          ? `No invoice matches “${query}”.`
          : statusFilter()
            ? `No ${statusFilter()} invoices.`
            : 'No invoices yet. Create one below.';
  }

  const reload = () => load().catch((error) => reportError(error, filters));

  /**
   * Reads again as many invoices as are shown (up to one answer's worth), once the listing under way is
   * done: the list as it is now, new invoices included.
   */
  async function refreshShown(): Promise<void> {
    await listing;
    const max = query ? MAX_SEARCH_LIMIT : MAX_LIST_LIMIT;
    await load(false, { quiet: true, limit: Math.min(max, Math.max(PAGE, rows.children.length)) });
  }

  /** Reads one shown invoice again and replaces its row. */
  async function refreshRow(invoiceId: string): Promise<void> {
    const target = workspace;
    // A listing read before the change must not land after this row's answer: it goes first.
    await listing;
    if (!target || workspace?.id !== target.id || !rowOf(invoiceId)) return;
    const mine = ++rowReadCount;
    rowReads.set(invoiceId, mine);
    try {
      const fresh = await api.get<Invoice>(workspacePath(target.id, 'invoices', invoiceId));
      if (rowReads.get(invoiceId) === mine && workspace?.id === target.id) replaceRow(fresh);
    } finally {
      if (rowReads.get(invoiceId) === mine) rowReads.delete(invoiceId);
    }
  }

  const listShown = () => searchForm.offsetParent !== null;
  const live = followInvoices({ visible: listShown, changed: refreshRow, refresh: refreshShown });
  // Another panel (the router shows it next) or another page: the list is no longer followed.
  window.addEventListener('hashchange', () => {
    if (window.location.hash.slice(1).split('/')[0] !== 'invoices') live.stop();
  });
  window.addEventListener('pagehide', () => live.stop());
  // Back from the browser's page cache: follow again, and catch up on what changed meanwhile.
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted || !workspace || !listShown()) return;
    live.start(workspace.id);
    refreshShown().catch(() => {});
  });

  function setQuery(text: string): void {
    query = text;
    show(clear, query !== '');
    filters.disabled = query !== '';
    reload();
  }

  filters.addEventListener('change', reload);
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    setQuery(field(searchForm, 'q').value.trim());
  });
  clear.addEventListener('click', () => {
    searchForm.reset();
    setQuery('');
  });
  more.addEventListener('click', () => busy(more, () => load(true).catch((error) => reportError(error, more))));

  const exportButton = byId(ids.invoiceExport, HTMLButtonElement);
  const exportStatus = byId(ids.invoiceExportStatus);
  exportButton.addEventListener('click', () =>
    busy(exportButton, () =>
      exportCsv().catch((error) => {
        exportStatus.textContent = '';
        reportError(error, exportButton);
      }),
    ),
  );

  /** Downloads the CSV of the invoices with the chosen status, counting them as they stream in. */
  async function exportCsv(): Promise<void> {
    if (!workspace) return;
    const path = workspacePath(workspace.id, 'invoices', 'export', { status: statusFilter() });
    exportStatus.textContent = 'Exporting…';
    let response: Response;
    try {
      response = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
    } catch {
      throw new ApiError(0, { message: 'Could not reach the service. Check your connection and try again.' });
    }
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => undefined));
    if (!response.body) throw new ApiError(0, { message: 'The service sent no file.' });
    const reader = response.body.getReader();
    const parts: BlobPart[] = [];
    let lines = 0;
    // A line break inside a quoted field (a description's) ends no record. A quote toggles, a doubled
    // one twice; the state carries from one chunk to the next.
    let quoted = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // A fetch body is read into plain ArrayBuffers, never shared memory.
      parts.push(value as Uint8Array<ArrayBuffer>);
      for (const byte of value) {
        if (byte === 34) quoted = !quoted;
        else if (byte === 10 && !quoted) lines += 1;
      }
      exportStatus.textContent = `Exporting… ${invoices(lines - 1)}`;
    }
    const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'invoices.csv';
    const url = URL.createObjectURL(new Blob(parts, { type: 'text/csv' }));
    const link = el('a', { href: url, download: name, hidden: '' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    exportStatus.textContent = `Exported ${invoices(lines - 1)} to ${name}.`;
  }

  /** `1 invoice`, `12,000 invoices` (the header line is not one). */
  const invoices = (count: number) => `${Math.max(0, count).toLocaleString()} invoice${count === 1 ? '' : 's'}`;

  const createInvoice = idempotentCreate<Invoice>();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = invoiceFields(form);
    formError(form);
    if (body.amount === '') return fieldError(field(form, 'amount'), 'Enter an amount like 12.50.');
    const target = workspace;
    if (!target) return;
    busy(submitButton(form), async () => {
      try {
        const created = await createInvoice(workspacePath(target.id, 'invoices'), body);
        form.reset();
        onCreated(created);
      } catch (error) {
        reportError(error, form);
      }
    });
  });

  return {
    /** Takes the person to the create form, ready for the amount. */
    startCreate() {
      form.scrollIntoView({ block: 'start' });
      field(form, 'amount').focus({ preventScroll: true });
    },
    async show(selected) {
      if (selected.id !== workspace?.id) {
        searchForm.reset();
        form.reset();
        formError(form);
        const all = filters.querySelector('input[value=""]');
        if (all instanceof HTMLInputElement) all.checked = true;
        query = '';
        show(clear, false);
        filters.disabled = false;
        rows.replaceChildren();
      }
      workspace = selected;
      // Following starts before the first read, so that no change falls between the two.
      live.start(selected.id);
      await live.ready();
      await load();
    },
  };
}
