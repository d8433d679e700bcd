/* global fetch, URL, Blob, document, setTimeout */
// The invoices panel: the list, status filters, exact search, older pages, CSV export and the create form.
import { ApiError, api, idempotentCreate, workspacePath } from './api.js';
import { badge, busy, byId, el, fieldError, formError, formatAmount, reportError, show, timeEl } from './dom.js';

const PAGE = 25;

/**
 * The POST /invoices fields of a form (the invoice form, an automation's template): empty optional
 * fields are left out rather than sent empty, which the API would refuse.
 */
export function invoiceFields(fields) {
  const optional = ['externalId', 'network', 'successUrl', 'cancelUrl']
    .map((name) => [name, fields[name].value.trim()])
    .filter(([, value]) => value !== '');
  return {
    amount: fields.amount.value.trim(),
    expiresIn: Number(fields.expiresIn.value),
    ...Object.fromEntries(optional),
  };
}

/** `onCreated(invoice)` runs after the create form made one. */
export function createInvoicesView({ onCreated }) {
  const rows = byId('invoice-rows');
  const more = byId('invoice-more');
  const status = byId('invoice-list-status');
  const searchForm = byId('invoice-search');
  const filters = byId('invoice-filters');
  const clear = byId('invoice-search-clear');
  const form = byId('invoice-form');
  let workspace;
  let query = ''; // a search replaces the status filter until cleared
  let cursor = null;
  // Bumped by every new listing, so a slow answer for an older one is dropped.
  let generation = 0;

  const statusFilter = () => filters.querySelector('input[name=status]:checked')?.value ?? '';

  const row = (invoice) =>
    el(
      'tr',
      {},
      el('td', { 'data-label': 'Number' }, el('a', { href: `#invoice/${invoice.id}` }, invoice.number)),
      el('td', { 'data-label': 'Amount', class: 'num' }, `${formatAmount(invoice.amount)} USDC`),
      el('td', { 'data-label': 'Status' }, badge(invoice.status)),
      el('td', { 'data-label': 'Order reference' }, invoice.externalId ?? el('span', { class: 'muted' }, '—')),
      el('td', { 'data-label': 'Created' }, timeEl(invoice.createdAt)),
      el('td', { 'data-label': 'Deadline' }, timeEl(invoice.expiresAt)),
    );

  /** The first page (`append` false) or the next one. */
  async function load(append = false) {
    const mine = ++generation;
    const target = workspace;
    if (!append) cursor = null;
    status.textContent = 'Loading…';
    const page = query
      ? await api.get(
          workspacePath(target.id, 'invoice-search', { q: query, cursor: cursor ?? undefined, limit: PAGE }),
        )
      : await api.get(
          workspacePath(target.id, 'invoices', { status: statusFilter(), cursor: cursor ?? undefined, limit: PAGE }),
        );
    if (mine !== generation) return;
    if (append) rows.append(...page.invoices.map(row));
    else rows.replaceChildren(...page.invoices.map(row));
    cursor = page.nextCursor;
    show(more, cursor !== null);
    const shown = rows.children.length;
    // An empty table under "No invoices yet" would read as a broken list: the message stands alone.
    show(byId('invoice-table'), shown > 0);
    status.textContent =
      shown > 0
        ? ''
        : query
          ? `No invoice matches “${query}”.`
          : statusFilter()
            ? `No ${statusFilter()} invoices.`
            : 'No invoices yet. Create one below.';
  }

  const reload = () => load().catch((error) => reportError(error));

  function setQuery(text) {
    query = text;
    show(clear, query !== '');
    filters.disabled = query !== '';
    reload();
  }

  filters.addEventListener('change', reload);
  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    setQuery(searchForm.elements.q.value.trim());
  });
  clear.addEventListener('click', () => {
    searchForm.reset();
    setQuery('');
  });
  more.addEventListener('click', () => busy(more, () => load(true).catch((error) => reportError(error))));

  const exportButton = byId('invoice-export');
  const exportStatus = byId('invoice-export-status');
  exportButton.addEventListener('click', () =>
    busy(exportButton, () =>
      exportCsv().catch((error) => {
        exportStatus.textContent = '';
        reportError(error);
      }),
    ),
  );

  /** Downloads the CSV of the invoices with the chosen status, counting them as they stream in. */
  async function exportCsv() {
    const path = workspacePath(workspace.id, 'invoices', 'export', { status: statusFilter() });
    exportStatus.textContent = 'Exporting…';
    let response;
    try {
      response = await fetch(path, { credentials: 'same-origin', cache: 'no-store' });
    } catch {
      throw new ApiError(0, { message: 'Could not reach the service. Check your connection and try again.' });
    }
    if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => undefined));
    const reader = response.body.getReader();
    const parts = [];
    let lines = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      for (const byte of value) if (byte === 10) lines += 1;
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
  const invoices = (count) => `${Math.max(0, count).toLocaleString()} invoice${count === 1 ? '' : 's'}`;

  const createInvoice = idempotentCreate();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = invoiceFields(form.elements);
    formError(form);
    if (body.amount === '') return fieldError(form.elements.amount, 'Enter an amount like 12.50.');
    const target = workspace;
    busy(form.querySelector('[type=submit]'), async () => {
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
      form.elements.amount.focus({ preventScroll: true });
    },
    async show(selected) {
      if (selected.id !== workspace?.id) {
        searchForm.reset();
        form.reset();
        formError(form);
        filters.querySelector('input[value=""]').checked = true;
        query = '';
        show(clear, false);
        filters.disabled = false;
        rows.replaceChildren();
      }
      workspace = selected;
      await load();
    },
  };
}
