import { AppError } from '../../shared/errors.js';

export const PERIODS = ['hour', 'day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** The longest interval per period: a year between occurrences at most. */
export const MAX_INTERVAL: Readonly<Record<Period, number>> = { hour: 8760, day: 365, week: 52, month: 12 };

/**
 * When an automation creates its invoices. Every date is UTC and every rule is calendar arithmetic on
 * UTC, so there is no daylight-saving shift: a daily schedule at 09:00Z stays at 09:00Z all year.
 */
export interface Schedule {
  readonly every: Period;
  /** Every `interval` periods: 1 = every period, 2 = every other one, … */
  readonly interval: number;
  /** The first occurrence. */
  readonly startAt: Date;
  /** No occurrence at or after it. */
  readonly endAt: Date | null;
  /** No occurrence beyond this number. */
  readonly maxOccurrences: number | null;
}

const FIXED_MS: Readonly<Record<Exclude<Period, 'month'>, number>> = {
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};

/**
 * The time of occurrence `n` (1 = startAt). Monthly schedules keep the day of the month of `startAt`;
 * a month without that day (the 29th–31st) uses its last day, and the next month goes back to the
 * original day: Jan 31 → Feb 28 (29 in leap years) → Mar 31 → Apr 30.
 */
export function occurrenceAt(schedule: Pick<Schedule, 'every' | 'interval' | 'startAt'>, n: number): Date {
  const { startAt, every, interval } = schedule;
  const steps = (n - 1) * interval;
  if (every !== 'month') return new Date(startAt.getTime() + steps * FIXED_MS[every]);
  const monthIndex = startAt.getUTCMonth() + steps;
  const year = startAt.getUTCFullYear() + Math.floor(monthIndex / 12);
  const month = ((monthIndex % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(startAt.getUTCDate(), lastDay),
      startAt.getUTCHours(),
      startAt.getUTCMinutes(),
      startAt.getUTCSeconds(),
      startAt.getUTCMilliseconds(),
    ),
  );
}

/** Whether occurrence `n` belongs to the schedule (within maxOccurrences and before endAt). */
export function withinSchedule(schedule: Schedule, n: number): boolean {
  if (schedule.maxOccurrences !== null && n > schedule.maxOccurrences) return false;
  return schedule.endAt === null || occurrenceAt(schedule, n).getTime() < schedule.endAt.getTime();
}

/**
 * What to do at `now` when occurrence `next` is the first not yet run: nothing before its time; at or
 * after it, run the latest occurrence whose time has come — an occurrence missed by more than one
 * period (the next one's time has come too) is skipped, so a service that was down for a week does
 * not create a week of invoices in a burst. `end` when the schedule has no occurrence left.
 */
export function dueOccurrence(
  schedule: Schedule,
  next: number,
  now: Date,
): { kind: 'wait'; at: Date } | { kind: 'run'; occurrence: number; skipped: number } | { kind: 'end' } {
  if (!withinSchedule(schedule, next)) return { kind: 'end' };
  const at = occurrenceAt(schedule, next);
  if (at.getTime() > now.getTime()) return { kind: 'wait', at };
  let due = next;
  // Bounded: the interval is at least an hour, and a gap is measured in periods, not milliseconds.
  while (withinSchedule(schedule, due + 1) && occurrenceAt(schedule, due + 1).getTime() <= now.getTime()) due += 1;
  return { kind: 'run', occurrence: due, skipped: due - next };
}

/** The times of the next `count` occurrences from number `from` on, within the schedule. */
export function upcoming(schedule: Schedule, from: number, count: number): Date[] {
  const dates: Date[] = [];
  for (let n = from; dates.length < count && withinSchedule(schedule, n); n += 1) dates.push(occurrenceAt(schedule, n));
  return dates;
}

/** Checks the fields a client sent; the schema has checked their types. Throws `invalid_schedule`. */
export function checkSchedule(schedule: Schedule, now: Date): Schedule {
  const refuse = (message: string): never => {
    throw new AppError('invalid_schedule', message);
  };
  if (!Number.isInteger(schedule.interval) || schedule.interval < 1 || schedule.interval > MAX_INTERVAL[schedule.every])
    refuse(
      `schedule.interval must be a whole number from 1 to ${MAX_INTERVAL[schedule.every]} for "${schedule.every}".`,
    );
  if (Number.isNaN(schedule.startAt.getTime())) refuse('schedule.startAt must be an RFC 3339 date-time.');
  if (schedule.startAt.getTime() < now.getTime() - 60_000)
    refuse('schedule.startAt must not be in the past: the first occurrence is at startAt.');
  if (schedule.endAt !== null && schedule.endAt.getTime() <= schedule.startAt.getTime())
    refuse('schedule.endAt must be after startAt.');
  return schedule;
}
