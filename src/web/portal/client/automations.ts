// The automations panel: the list, and the create form with a live preview of the next five dates
// (asked from the service, so the preview follows the very rules the schedule will run by).
import { ApiError, api, idempotentCreate, workspacePath } from './api.js';
import type { Automation, AutomationList, Preview, Workspace } from './api-types.js';
import { invoiceFields } from './invoices.js';
import {
  badge,
  busy,
  byId,
  el,
  field,
  fieldError,
  formError,
  formatAmount,
  pagedList,
  reportError,
  submitButton,
  timeEl,
} from './dom.js';
import { ids } from '../portal.ids.js';

/** The `schedule` of POST /automations (and of the preview's query). */
type ScheduleFields = {
  every: string;
  interval: number;
  startAt?: string;
  endAt?: string;
  maxOccurrences?: number;
};

const PAGE = 25;
const PERIOD_NAMES: Readonly<Record<string, readonly [one: string, many: string]>> = {
  hour: ['hour', 'hours'],
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
};

/** "Every month", "Every 2 weeks". */
export function describeSchedule({ every, interval }: { readonly every: string; readonly interval: number }): string {
  const [one, many] = PERIOD_NAMES[every] ?? [every, every];
  return interval === 1 ? `Every ${one}` : `Every ${interval} ${many}`;
}

/** A date as this browser's local time, with its UTC time beside it: schedules run in UTC. */
export function scheduleDate(iso: string): HTMLElement {
  return el(
    'span',
    {},
    timeEl(iso),
    ' ',
    el('span', { class: 'muted' }, `(${iso.slice(0, 16).replace('T', ' ')} UTC)`),
  );
}

/** `<input type=datetime-local>` values are local wall-clock times without a zone; Date reads them as local. */
const fromLocalInput = (value: string) => new Date(value).toISOString();
const pad = (n: number) => String(n).padStart(2, '0');
const toLocalInput = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** The start of the next full hour, local time: the form's default first invoice. */
function nextFullHour(): Date {
  const date = new Date(Date.now() + 3_600_000);
  date.setMinutes(0, 0, 0);
  return date;
}

function row(automation: Automation): HTMLElement {
  return el(
    'tr',
    {},
    el('td', { 'data-label': 'Name' }, el('a', { href: `#automation/${automation.id}` }, automation.name)),
    el('td', { 'data-label': 'Amount', class: 'num' }, `${formatAmount(automation.template.amount)} USDC`),
    el('td', { 'data-label': 'Schedule' }, describeSchedule(automation.schedule)),
    el(
      'td',
      { 'data-label': 'Status' },
      badge(automation.status),
      automation.pausedReason && el('span', { class: 'muted' }, ` ${pausedWords(automation.pausedReason)}`),
    ),
    el('td', { 'data-label': 'Next invoice' }, timeEl(automation.nextRunAt)),
    el('td', { 'data-label': 'Invoices', class: 'num' }, String(automation.occurrences)),
  );
}

/** The fields of `schedule` in POST /automations, from the form; empty optional ones left out. */
function scheduleOf(form: HTMLFormElement): ScheduleFields {
  const value = (name: string) => field(form, name).value;
  const schedule: ScheduleFields = { every: value('every'), interval: Number(value('interval')) };
  if (value('startAt')) schedule.startAt = fromLocalInput(value('startAt'));
  if (value('endAt')) schedule.endAt = fromLocalInput(value('endAt'));
  if (value('maxOccurrences')) schedule.maxOccurrences = Number(value('maxOccurrences'));
  return schedule;
}

/** `onCreated(automation)` runs after the form made one. */
export function createAutomationsView({ onCreated }: { readonly onCreated: (automation: Automation) => void }): {
  show(selected: Workspace): Promise<void>;
} {
  const form = byId(ids.automationForm, HTMLFormElement);
  const previewList = byId(ids.automationPreview);
  const previewStatus = byId(ids.automationPreviewStatus);
  let workspace: Workspace | undefined;

  const list = pagedList({
    rows: byId(ids.automationRows),
    more: byId(ids.automationMore, HTMLButtonElement),
    status: byId(ids.automationListStatus),
    empty: 'No automations yet. Create one below.',
    render: row,
    fetchPage: async (ws, cursor) => {
      const page = await api.get<AutomationList>(
        workspacePath(ws.id, 'automations', { cursor: cursor ?? undefined, limit: PAGE }),
      );
      return { items: page.automations, nextCursor: page.nextCursor };
    },
  });

  // The preview asks the service once typing pauses; an answer for older values is dropped.
  let previewTimer: number | undefined;
  let previewGeneration = 0;
  async function preview(): Promise<void> {
    const mine = ++previewGeneration;
    const schedule = scheduleOf(form);
    const unfit = !schedule.startAt
      ? 'Choose when the first invoice is created.'
      : !Number.isInteger(schedule.interval) || schedule.interval < 1
        ? '"Every" takes a whole number, 1 or more.'
        : undefined;
    if (unfit) {
      previewList.replaceChildren();
      previewStatus.textContent = unfit;
      return;
    }
    try {
      if (!workspace) return;
      const { upcoming } = await api.get<Preview>(workspacePath(workspace.id, 'automations', 'preview', schedule));
      if (mine !== previewGeneration) return;
      previewList.replaceChildren(...upcoming.map((iso) => el('li', {}, scheduleDate(iso))));
      previewStatus.textContent = upcoming.length < 5 ? `Only ${upcoming.length} in all.` : '';
    } catch (error) {
      if (mine !== previewGeneration) return;
      previewList.replaceChildren();
      if (!(error instanceof ApiError) || error.sessionLost) return reportError(error, form);
      previewStatus.textContent = error.message;
    }
  }
  const previewSoon = () => {
    window.clearTimeout(previewTimer);
    previewTimer = window.setTimeout(() => void preview(), 250);
  };
  for (const name of ['every', 'interval', 'startAt', 'endAt', 'maxOccurrences']) {
    field(form, name).addEventListener('input', previewSoon);
    field(form, name).addEventListener('change', previewSoon);
  }

  function resetForm(): void {
    form.reset();
    formError(form);
    field(form, 'startAt').value = toLocalInput(nextFullHour());
  }

  const createAutomation = idempotentCreate<Automation>();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = field(form, 'name').value.trim();
    const template = invoiceFields(form);
    formError(form);
    if (name === '')
      return fieldError(field(form, 'name'), 'Give the automation a name, e.g. "Monthly retainer, Acme".');
    if (template.amount === '')
      return fieldError(field(form, 'amount'), 'Enter the amount of each invoice in USDC, e.g. 250,00.');
    const startAt = field(form, 'startAt');
    if (!startAt.value) return fieldError(startAt, 'Choose when the first invoice is created.');
    const body = { name, template, schedule: scheduleOf(form) };
    const target = workspace;
    if (!target) return;
    busy(submitButton(form), async () => {
      try {
        const created = await createAutomation(workspacePath(target.id, 'automations'), body);
        resetForm();
        onCreated(created);
      } catch (error) {
        reportError(error, form);
      }
    });
  });

  return {
    async show(selected) {
      if (selected.id !== workspace?.id) {
        resetForm();
        list.reset();
      }
      workspace = selected;
      await Promise.all([list.load(selected), preview()]);
    },
  };
}

/**
 * Why an automation stopped and what to do here, for the refusals that pause one. The service's own
 * message is written for API clients and may name an endpoint; it stays the words of a code not listed.
 */
const PAUSED_WORDS: Readonly<Record<string, string>> = {
  paused_by_owner: 'Paused by you. Resume it to create the next invoice on its date.',
  insufficient_credits:
    'Paused: there were not enough credits for the next invoice. Buy credits in the Billing tab, then resume.',
  return_origin_not_allowed:
    'Paused: its return address is no longer an allowed return origin. Allow it again in Settings, then resume.',
  amount_too_large:
    'Paused: its amount is above the largest invoice allowed. End it and create an automation with a smaller amount.',
  unsupported_network:
    'Paused: its network is no longer offered. End it and create an automation on a network that is.',
};

export function pausedWords(reason: NonNullable<Automation['pausedReason']>): string {
  return PAUSED_WORDS[reason.code] ?? `Paused: ${reason.message}`;
}
