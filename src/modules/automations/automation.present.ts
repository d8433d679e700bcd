import { AppError } from '../../shared/errors.js';
import type { Automation, AutomationId } from './automation.js';
import { upcoming, withinSchedule, occurrenceAt } from './schedule.js';

/** How many upcoming dates an automation shows (the portal's preview). */
const PREVIEW = 5;

/** The automation as the API shows it. */
export function presentAutomation(automation: Automation, now: Date) {
  const { schedule } = automation;
  const active = automation.status === 'active';
  const left = automation.status !== 'ended' && withinSchedule(schedule, automation.nextOccurrence);
  return {
    id: automation.id,
    name: automation.name,
    status: automation.status,
    pausedReason: automation.pausedReason,
    template: automation.template,
    schedule: {
      every: schedule.every,
      interval: schedule.interval,
      startAt: schedule.startAt.toISOString(),
      endAt: schedule.endAt?.toISOString() ?? null,
      maxOccurrences: schedule.maxOccurrences,
    },
    nextRunAt: active && left ? laterOf(occurrenceAt(schedule, automation.nextOccurrence), now).toISOString() : null,
    upcoming: left ? upcoming(schedule, automation.nextOccurrence, PREVIEW).map((date) => date.toISOString()) : [],
    occurrences: automation.occurrences,
    skipped: automation.skipped,
    lastInvoiceId: automation.lastInvoiceId,
    createdAt: automation.createdAt.toISOString(),
    updatedAt: automation.updatedAt.toISOString(),
  };
}

export type AutomationView = ReturnType<typeof presentAutomation>;

/** A missed occurrence runs as soon as the job gets to it: never show a next run in the past. */
function laterOf(a: Date, b: Date): Date {
  return a.getTime() >= b.getTime() ? a : b;
}

const CURSOR = /^([0-9]{1,15})\.(aut_[0-9a-hjkmnp-tv-z]{26})$/;

/** List cursors name the last automation a page returned: its creation time (ms) and id. Opaque to clients. */
export function encodeCursor(automation: Pick<Automation, 'createdAt' | 'id'>): string {
  return `${automation.createdAt.getTime()}.${automation.id}`;
}

export function parseCursor(raw: string | undefined): { createdAt: Date; id: AutomationId } | null {
  if (raw === undefined) return null;
  const match = CURSOR.exec(raw);
  if (!match)
    throw new AppError(
      'invalid_cursor',
      `"${raw.slice(0, 40)}" is not a cursor of this list: omit cursor for the first page, then pass the nextCursor it returned.`,
    );
  return { createdAt: new Date(Number(match[1])), id: match[2] as AutomationId };
}
