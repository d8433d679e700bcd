// One automation: its facts, pause / resume / end, its next dates and the invoices it created. While it
// is on screen and active, it reloads just after its next run, so the new invoice shows up by itself.
import { api, serverNow, workspacePath } from './api.js';
import type { Automation, Invoice, InvoiceList, Workspace } from './api-types.js';
import { describeSchedule, pausedWords, scheduleDate } from './automations.js';
import { badge, busy, byId, el, fillFacts, formatAmount, notify, pagedList, reportError, show, timeEl } from './dom.js';
import { ids } from '../portal.ids.js';

const PAGE = 25;
const WINDOWS: Readonly<Record<number, string>> = { 3600: '1 hour', 86400: '1 day', 432000: '5 days' };
/** How soon after its due time the new invoice is looked for: an occurrence takes milliseconds, not seconds. */
const AFTER_RUN_MS = 1000;
/** Bounds on the wait between reloads while active: a changed schedule or a pause elsewhere shows within a minute. */
const MIN_WAIT_MS = 2000;
const MAX_WAIT_MS = 60_000;

type Verb = 'pause' | 'resume' | 'end';
const VERBS: Readonly<Record<Verb, (automation: Automation) => string>> = {
  pause: (a) => `${a.name} is paused: it creates no invoice until you resume it.`,
  resume: (a) => `${a.name} is running again, from its next date.`,
  end: (a) => `${a.name} has ended. Its invoices stay payable.`,
};

function invoiceRow(invoice: Invoice): HTMLElement {
  return el(
    'tr',
    {},
    el('td', { 'data-label': '#', class: 'num' }, String(invoice.occurrence)),
    el('td', { 'data-label': 'Number' }, el('a', { href: `#invoice/${invoice.id}` }, invoice.number)),
    el('td', { 'data-label': 'Amount', class: 'num' }, `${formatAmount(invoice.amount)} USDC`),
    el('td', { 'data-label': 'Status' }, badge(invoice.status)),
    el('td', { 'data-label': 'Order reference' }, invoice.externalId ?? el('span', { class: 'muted' }, '—')),
    el('td', { 'data-label': 'Created' }, timeEl(invoice.createdAt)),
  );
}

/** `onChange()` runs after a pause, resume or end (the health issues may have moved). */
export function createAutomationView({ onChange }: { readonly onChange: () => void }): {
  show(selected: Workspace, automationId: string): Promise<void>;
} {
  const card = byId(ids.automationDetail);
  let workspace: Workspace;
  /** The automation shown; only its id until the first answer arrives. */
  let automation: Automation | { readonly id: string; readonly name?: undefined };
  let generation = 0;
  let refresh: number | undefined;

  const invoices = pagedList({
    rows: byId(ids.automationInvoiceRows),
    more: byId(ids.automationInvoicesMore, HTMLButtonElement),
    status: byId(ids.automationInvoicesStatus),
    empty: 'None yet: the first one is created at the first date above.',
    render: invoiceRow,
    fetchPage: async (ws, cursor) => {
      const page = await api.get<InvoiceList>(
        workspacePath(ws.id, 'invoices', { automationId: automation.id, cursor: cursor ?? undefined, limit: PAGE }),
      );
      return { items: page.invoices, nextCursor: page.nextCursor };
    },
  });

  function render(automation: Automation): void {
    const { template, schedule } = automation;
    byId(ids.automationNameHeading).textContent = automation.name;
    byId(ids.automationStatus).replaceWith(Object.assign(badge(automation.status), { id: ids.automationStatus }));
    const reason = byId(ids.automationPausedReason);
    reason.textContent = automation.pausedReason ? pausedWords(automation.pausedReason) : '';
    show(reason, Boolean(automation.pausedReason));
    fillFacts(byId(ids.automationFacts), [
      ['Amount', `${formatAmount(template.amount)} USDC`],
      ['Payment window', WINDOWS[template.expiresIn ?? 3600] ?? `${template.expiresIn} s`],
      ['Order reference', template.externalId ? el('code', {}, template.externalId) : undefined],
      ['Description', template.description ? el('span', { class: 'text' }, template.description) : undefined],
      ['Network', template.network ?? 'The buyer chooses'],
      ['Schedule', el('span', {}, `${describeSchedule(schedule)}, from `, scheduleDate(schedule.startAt))],
      ['Stops before', schedule.endAt ? scheduleDate(schedule.endAt) : undefined],
      ['At most', schedule.maxOccurrences === null ? undefined : `${schedule.maxOccurrences} invoices`],
      ['Next invoice', automation.nextRunAt ? scheduleDate(automation.nextRunAt) : '—'],
      ['Invoices created', String(automation.occurrences)],
      [
        'Dates skipped',
        automation.skipped > 0
          ? `${automation.skipped} (missed by more than one period, or due while paused)`
          : undefined,
      ],
      ['Automation id', el('code', {}, automation.id)],
    ]);
    byId(ids.automationUpcoming).replaceChildren(...automation.upcoming.map((iso) => el('li', {}, scheduleDate(iso))));
    show(byId(ids.automationUpcomingNone), automation.upcoming.length === 0);
    show(byId(ids.automationPause), automation.status === 'active');
    show(byId(ids.automationResume), automation.status === 'paused');
    show(byId(ids.automationActions), automation.status !== 'ended');
  }

  async function load(): Promise<void> {
    const mine = ++generation;
    const fresh = await api.get<Automation>(workspacePath(workspace.id, 'automations', automation.id));
    if (mine !== generation) return;
    automation = fresh;
    render(fresh);
    await invoices.load(workspace);
    scheduleRefresh(mine, fresh);
  }

  /** While active and on screen: reload just after the next run (within bounds); any navigation ends it. */
  function scheduleRefresh(mine: number, automation: Automation): void {
    window.clearTimeout(refresh);
    if (automation.status !== 'active' || !automation.nextRunAt) return;
    const untilRun = Date.parse(automation.nextRunAt) - serverNow() + AFTER_RUN_MS;
    refresh = window.setTimeout(
      () => {
        if (mine !== generation || card.offsetParent === null) return;
        // A failed refresh is silent: the next navigation or action loads again and reports.
        load().catch(() => {});
      },
      Math.min(MAX_WAIT_MS, Math.max(MIN_WAIT_MS, untilRun)),
    );
  }

  async function act(button: HTMLButtonElement, verb: Verb): Promise<void> {
    await busy(button, async () => {
      try {
        const updated = await api.post<Automation>(workspacePath(workspace.id, 'automations', automation.id, verb));
        notify(VERBS[verb](updated), 'success', { near: button });
        onChange();
        await load();
      } catch (error) {
        reportError(error, button);
      }
    });
  }

  const pause = byId(ids.automationPause, HTMLButtonElement);
  const resume = byId(ids.automationResume, HTMLButtonElement);
  const end = byId(ids.automationEndNow, HTMLButtonElement);
  pause.addEventListener('click', () => act(pause, 'pause'));
  resume.addEventListener('click', () => act(resume, 'resume'));
  end.addEventListener('click', () => {
    if (automation.name === undefined) return; // not loaded yet: the buttons are hidden until it is
    const question = `End ${automation.name} for good?\n\nIt creates no further invoice and cannot be resumed. The invoices it created stay payable.`;
    if (window.confirm(question)) act(end, 'end');
  });

  return {
    async show(selected, automationId) {
      workspace = selected;
      automation = { id: automationId };
      byId(ids.automationNameHeading).textContent = 'Loading…';
      for (const id of [ids.automationFacts, ids.automationUpcoming]) byId(id).replaceChildren();
      invoices.reset();
      show(byId(ids.automationActions), false);
      await load();
    },
  };
}
