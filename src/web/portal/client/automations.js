/* global window */
// The automations panel: the list, and the create form with a live preview of the next five dates
// (asked from the service, so the preview follows the very rules the schedule will run by).
import { ApiError, api, idempotentCreate, workspacePath } from './api.js';
import { invoiceFields } from './invoices.js';
import { badge, busy, byId, el, fieldError, formError, formatAmount, pagedList, reportError, timeEl } from './dom.js';

const PAGE = 25;
const PERIOD_NAMES = {
  hour: ['hour', 'hours'],
  day: ['day', 'days'],
  week: ['week', 'weeks'],
  month: ['month', 'months'],
};

/** "Every month", "Every 2 weeks". */
export function describeSchedule({ every, interval }) {
  const [one, many] = PERIOD_NAMES[every] ?? [every, every];
  return interval === 1 ? `Every ${one}` : `Every ${interval} ${many}`;
}

/** A date as this browser's local time, with its UTC time beside it: schedules run in UTC. */
export function scheduleDate(iso) {
  return el(
    'span',
    {},
    timeEl(iso),
    ' ',
    el('span', { class: 'muted' }, `(${iso.slice(0, 16).replace('T', ' ')} UTC)`),
  );
}

/** `<input type=datetime-local>` values are local wall-clock times without a zone; Date reads them as local. */
const fromLocalInput = (value) => new Date(value).toISOString();
const pad = (n) => String(n).padStart(2, '0');
const toLocalInput = (date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** The start of the next full hour, local time: the form's default first invoice. */
function nextFullHour() {
  const date = new Date(Date.now() + 3_600_000);
  date.setMinutes(0, 0, 0);
  return date;
}

function row(automation) {
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
      automation.pausedReason && el('span', { class: 'muted' }, ` ${automation.pausedReason.message}`),
    ),
    el('td', { 'data-label': 'Next invoice' }, timeEl(automation.nextRunAt)),
    el('td', { 'data-label': 'Invoices', class: 'num' }, String(automation.occurrences)),
  );
}

/** The fields of `schedule` in POST /automations, from the form; empty optional ones left out. */
function scheduleOf(fields) {
  const schedule = { every: fields.every.value, interval: Number(fields.interval.value) };
  if (fields.startAt.value) schedule.startAt = fromLocalInput(fields.startAt.value);
  if (fields.endAt.value) schedule.endAt = fromLocalInput(fields.endAt.value);
  if (fields.maxOccurrences.value) schedule.maxOccurrences = Number(fields.maxOccurrences.value);
  return schedule;
}

/** `onCreated(automation)` runs after the form made one. */
export function createAutomationsView({ onCreated }) {
  const form = byId('automation-form');
  const fields = form.elements;
  const previewList = byId('automation-preview');
  const previewStatus = byId('automation-preview-status');
  let workspace;

  const list = pagedList({
    rows: byId('automation-rows'),
    more: byId('automation-more'),
    status: byId('automation-list-status'),
    empty: 'No automations yet. Create one below.',
    render: row,
    fetchPage: async (ws, cursor) => {
      const page = await api.get(workspacePath(ws.id, 'automations', { cursor: cursor ?? undefined, limit: PAGE }));
      return { items: page.automations, nextCursor: page.nextCursor };
    },
  });

  // The preview asks the service once typing pauses; an answer for older values is dropped.
  let previewTimer;
  let previewGeneration = 0;
  async function preview() {
    const mine = ++previewGeneration;
    const schedule = scheduleOf(fields);
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
      const { upcoming } = await api.get(workspacePath(workspace.id, 'automations', 'preview', schedule));
      if (mine !== previewGeneration) return;
      previewList.replaceChildren(...upcoming.map((iso) => el('li', {}, scheduleDate(iso))));
      previewStatus.textContent = upcoming.length < 5 ? `Only ${upcoming.length} in all.` : '';
    } catch (error) {
      if (mine !== previewGeneration) return;
      previewList.replaceChildren();
      if (!(error instanceof ApiError) || error.sessionLost) return reportError(error);
      previewStatus.textContent = error.message;
    }
  }
  const previewSoon = () => {
    window.clearTimeout(previewTimer);
    previewTimer = window.setTimeout(() => void preview(), 250);
  };
  for (const name of ['every', 'interval', 'startAt', 'endAt', 'maxOccurrences']) {
    fields[name].addEventListener('input', previewSoon);
    fields[name].addEventListener('change', previewSoon);
  }

  function resetForm() {
    form.reset();
    formError(form);
    fields.startAt.value = toLocalInput(nextFullHour());
  }

  const createAutomation = idempotentCreate();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const name = fields.name.value.trim();
    const template = invoiceFields(fields);
    formError(form);
    if (name === '') return fieldError(fields.name, 'Give the automation a name, e.g. "Monthly retainer, Acme".');
    if (template.amount === '')
      return fieldError(fields.amount, 'Enter the amount of each invoice in USDC, e.g. 250,00.');
    if (!fields.startAt.value) return fieldError(fields.startAt, 'Choose when the first invoice is created.');
    const body = { name, template, schedule: scheduleOf(fields) };
    const target = workspace;
    busy(form.querySelector('[type=submit]'), async () => {
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
