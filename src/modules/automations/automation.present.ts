import { createdCursor } from '../../shared/created-cursor.js';
import type { Automation, AutomationId } from './automation.js';
import { upcoming, withinSchedule, occurrenceAt } from './schedule.js';

/** How many upcoming dates an automation and a schedule preview show. */
export const UPCOMING_DATES = 5;

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
    upcoming: left
      ? upcoming(schedule, automation.nextOccurrence, UPCOMING_DATES).map((date) => date.toISOString())
      : [],
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

/** Cursors of the automation list (newest first): the last automation's creation time and id. */
export const automationCursor = createdCursor<AutomationId>('aut');
