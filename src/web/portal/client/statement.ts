// The Statement tab: one calendar month (UTC) of the workspace's invoices and credits, with a month
// picker, a print button (statement.css lays the page out for paper) and a CSV of the same lines.
import { api, workspacePath } from './api.js';
import type { Statement, Workspace } from './api-types.js';
import { busy, byId, el, formatAmount, reportError, show } from './dom.js';
import { ids } from '../portal.ids.js';

/** Ledger kinds as statement lines: what added credits, what took them. */
type Movement = Statement['credits']['movements'][number];

const CREDITED: Readonly<Record<string, string>> = {
  grant: 'New-workspace grant',
  manual_grant: 'Granted by the operator',
  purchase: 'Credit purchases',
};
const DEBITED: Readonly<Record<string, string>> = {
  'invoice.created': 'Invoice creation',
  'invoice.renewed': 'Renewals',
  'invoice.paid': 'Success fees of paid invoices',
};

const utc = (options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(undefined, { ...options, timeZone: 'UTC' });
const monthName = utc({ month: 'long', year: 'numeric' });
const day = utc({ dateStyle: 'long' });
const instant = utc({ dateStyle: 'medium', timeStyle: 'short', hourCycle: 'h23' });

/** `YYYY-MM` moved by `delta` months; string arithmetic on the calendar, no time zone involved. */
function shiftMonth(month: string, delta: number): string {
  const [year = 0, number = 1] = month.split('-').map(Number);
  const index = year * 12 + (number - 1) + delta;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

const signed = (n: number) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');
const entries = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

function line(label: string, value: string, { sub = false, total = false } = {}): HTMLElement {
  return el(
    'tr',
    { class: [sub && 'sub', total && 'total'].filter(Boolean).join(' ') || undefined },
    el('th', { scope: 'row' }, label),
    el('td', { class: 'num' }, value),
  );
}

function creditLines(statement: Statement): HTMLElement[] {
  const { credits } = statement;
  // Sub-lines by ledger kind under the line they add up to; a kind without credits moved is left out.
  const byKind = (
    field: 'credited' | 'debited',
    sign: number,
    words: Readonly<Record<string, string>>,
    keep: (kind: Movement['kind']) => boolean,
  ) =>
    credits.movements
      .filter((movement) => movement[field] > 0 && keep(movement.kind))
      .map((movement) =>
        line(
          `${words[movement.kind] ?? movement.kind} (${entries(movement.entries)})`,
          signed(sign * movement[field]),
          {
            sub: true,
          },
        ),
      );
  const closingAt = statement.final ? day.format(new Date(statement.to)) : 'now';
  return [
    line(`Opening balance, ${day.format(new Date(statement.from))}`, String(credits.openingBalance), { total: true }),
    line('Granted', signed(credits.granted)),
    ...byKind('credited', 1, CREDITED, (kind) => kind !== 'purchase'),
    line('Purchased', signed(credits.purchased)),
    line('Spent', signed(-credits.spent)),
    ...byKind('debited', -1, DEBITED, () => true),
    line(`Closing balance, ${closingAt}`, String(credits.closingBalance), { total: true }),
  ];
}

/** The statement's lines as CSV (RFC 4180, CRLF): section, line, entries, value, unit. */
function toCsv(statement: Statement): string {
  const rows: string[][] = [['section', 'line', 'entries', 'value', 'unit']];
  const meta = (name: string, value: string | boolean) => rows.push(['statement', name, '', String(value), '']);
  meta('workspace', statement.workspace.name);
  meta('workspace_id', statement.workspace.id);
  meta('month', statement.month);
  meta('from', statement.from);
  meta('to', statement.to);
  meta('final', statement.final);
  meta('generated_at', statement.generatedAt);
  for (const name of ['created', 'paid', 'cancelled', 'expired'] as const)
    rows.push(['invoices', name, String(statement.invoices[name]), '', 'invoices']);
  for (const volume of statement.invoices.paidVolume)
    rows.push([
      'paid_volume',
      volume.network ?? 'unknown network',
      String(volume.invoices),
      volume.amount,
      volume.currency,
    ]);
  const { credits } = statement;
  rows.push(['credits', 'opening_balance', '', String(credits.openingBalance), 'credits']);
  for (const name of ['granted', 'purchased', 'spent'] as const)
    rows.push(['credits', name, '', String(credits[name]), 'credits']);
  for (const movement of credits.movements)
    rows.push([
      'credit_movements',
      movement.kind,
      String(movement.entries),
      String(movement.credited - movement.debited),
      'credits',
    ]);
  rows.push(['credits', 'closing_balance', '', String(credits.closingBalance), 'credits']);
  return rows.map((fields) => `${fields.map(csvField).join(',')}\r\n`).join('');
}

function csvField(value: string): string {
  // A leading =, +, - or @ would be a formula to a spreadsheet; a workspace name is typed by people.
  // Numbers (a spending kind's movement is negative) stay numbers.
  const number = /^-?\d+(\.\d+)?$/.test(value);
  const safe = !number && /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function createStatementView(): { show(selected: Workspace): Promise<void> } {
  const input = byId(ids.statementMonth, HTMLInputElement);
  const prev = byId(ids.statementPrev, HTMLButtonElement);
  const next = byId(ids.statementNext, HTMLButtonElement);
  const print = byId(ids.statementPrint, HTMLButtonElement);
  const csv = byId(ids.statementCsv, HTMLButtonElement);
  const status = byId(ids.statementStatus);
  const sheet = byId(ids.statementSheet);
  let workspace: Workspace | undefined;
  let shown: Statement | undefined;
  let latest: string | undefined;
  let generation = 0;

  async function load(month: string | undefined): Promise<void> {
    const mine = ++generation;
    const target = workspace;
    if (!target) return;
    status.textContent = 'Loading…';
    const statement = await api.get<Statement>(workspacePath(target.id, 'statement', { month }));
    if (mine !== generation || target !== workspace) return;
    // The service's clock decides which month is the current one; later months cannot be asked for.
    if (!statement.final) latest = statement.month;
    if (latest) input.max = latest;
    render(statement);
  }

  function render(statement: Statement): void {
    shown = statement;
    input.value = statement.month;
    next.disabled = latest !== undefined && statement.month >= latest;
    print.disabled = false;
    csv.disabled = false;
    status.textContent = '';
    const month = monthName.format(new Date(statement.from));
    byId(ids.statementHeading).textContent = `${statement.workspace.name} — ${month}`;
    byId(ids.statementPeriod).textContent =
      `${month}, in UTC: from ${instant.format(new Date(statement.from))} up to ${instant.format(new Date(statement.to))}, not included.`;
    show(byId(ids.statementPartial), !statement.final);
    const { invoices } = statement;
    byId(ids.statementInvoices).replaceChildren(
      line('Created', String(invoices.created)),
      line('Paid', String(invoices.paid)),
      line('Cancelled', String(invoices.cancelled)),
      line('Expired unpaid', String(invoices.expired)),
    );
    byId(ids.statementVolume).replaceChildren(
      ...(invoices.paidVolume.length === 0
        ? [el('tr', {}, el('td', { colspan: '4', class: 'muted' }, 'Nothing was paid this month.'))]
        : invoices.paidVolume.map((volume) =>
            el(
              'tr',
              {},
              el('td', { 'data-label': 'Currency' }, volume.currency),
              el('td', { 'data-label': 'Network' }, volume.network ?? 'unknown'),
              el('td', { 'data-label': 'Invoices', class: 'num' }, String(volume.invoices)),
              el('td', { 'data-label': 'Amount', class: 'num' }, `${formatAmount(volume.amount)} ${volume.currency}`),
            ),
          )),
    );
    byId(ids.statementCredits).replaceChildren(...creditLines(statement));
    byId(ids.statementWorkspaceId).textContent = statement.workspace.id;
    const generated = byId(ids.statementGenerated);
    generated.replaceChildren(
      el('time', { datetime: statement.generatedAt }, `${instant.format(new Date(statement.generatedAt))} UTC`),
    );
    show(sheet, true);
  }

  const go = (button: HTMLButtonElement, month: string) =>
    busy(button, () => load(month).catch((error) => failed(error)));
  function failed(error: unknown): void {
    status.textContent = '';
    reportError(error, status);
  }

  prev.addEventListener('click', () => shown && go(prev, shiftMonth(shown.month, -1)));
  next.addEventListener('click', () => shown && go(next, shiftMonth(shown.month, 1)));
  input.addEventListener('change', () => {
    if (/^\d{4}-\d{2}$/.test(input.value) && input.value !== shown?.month)
      load(input.value).catch((error) => failed(error));
  });
  print.addEventListener('click', () => window.print());
  csv.addEventListener('click', () => {
    if (!shown) return;
    const name = `statement-${shown.workspace.id}-${shown.month}.csv`;
    const url = URL.createObjectURL(new Blob([toCsv(shown)], { type: 'text/csv' }));
    const link = el('a', { href: url, download: name, hidden: '' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
    status.textContent = `Downloaded ${name}.`;
  });

  return {
    async show(selected) {
      if (selected.id !== workspace?.id) {
        shown = undefined;
        show(sheet, false);
        print.disabled = true;
        csv.disabled = true;
      }
      workspace = selected;
      // Opening the tab shows the month last looked at, else the current one.
      await load(shown?.month);
    },
  };
}
