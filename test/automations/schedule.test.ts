import { describe, expect, it } from 'vitest';
import { invoiceInputOf } from '../../src/modules/automations/automation.js';
import {
  checkSchedule,
  dueOccurrence,
  occurrenceAt,
  upcoming,
  type Schedule,
} from '../../src/modules/automations/schedule.js';

const iso = (date: Date) => date.toISOString();
const schedule = (every: Schedule['every'], startAt: string, extra: Partial<Schedule> = {}): Schedule => ({
  every,
  interval: 1,
  startAt: new Date(startAt),
  endAt: null,
  maxOccurrences: null,
  ...extra,
});

describe('occurrence dates, all in UTC', () => {
  it('falls on the last day of a shorter month and goes back to the original day after it', () => {
    const monthly = schedule('month', '2027-01-31T09:30:00Z');
    expect(upcoming(monthly, 1, 5).map(iso)).toEqual([
      '2027-01-31T09:30:00.000Z',
      '2027-02-28T09:30:00.000Z',
      '2027-03-31T09:30:00.000Z',
      '2027-04-30T09:30:00.000Z',
      '2027-05-31T09:30:00.000Z',
    ]);
    // A leap year's February has the 29th; the 29th itself stays the 29th where it exists.
    expect(iso(occurrenceAt(schedule('month', '2028-01-31T00:00:00Z'), 2))).toBe('2028-02-29T00:00:00.000Z');
    expect(upcoming(schedule('month', '2027-01-29T00:00:00Z'), 1, 3).map(iso)).toEqual([
      '2027-01-29T00:00:00.000Z',
      '2027-02-28T00:00:00.000Z',
      '2027-03-29T00:00:00.000Z',
    ]);
    // Across the year end, every 5 months.
    expect(iso(occurrenceAt(schedule('month', '2027-10-31T00:00:00Z', { interval: 5 }), 2))).toBe(
      '2028-03-31T00:00:00.000Z',
    );
  });

  it('keeps the UTC time of day across daylight-saving changes: no shift', () => {
    // 2027-03-28 and 2027-10-31 are Europe's switches, 2027-03-14 and 2027-11-07 the US's.
    const daily = schedule('day', '2027-03-13T09:00:00Z');
    expect(upcoming(daily, 1, 17).every((date) => date.getUTCHours() === 9 && date.getUTCMinutes() === 0)).toBe(true);
    expect(iso(occurrenceAt(schedule('week', '2027-10-25T23:30:00Z'), 3))).toBe('2027-11-08T23:30:00.000Z');
    expect(iso(occurrenceAt(schedule('hour', '2027-03-28T00:15:00Z', { interval: 2 }), 3))).toBe(
      '2027-03-28T04:15:00.000Z',
    );
  });

  it('stops at maxOccurrences and before endAt', () => {
    expect(upcoming(schedule('day', '2027-01-01T00:00:00Z', { maxOccurrences: 2 }), 1, 5)).toHaveLength(2);
    const ending = schedule('day', '2027-01-01T00:00:00Z', { endAt: new Date('2027-01-03T00:00:00Z') });
    expect(upcoming(ending, 1, 5).map(iso)).toEqual(['2027-01-01T00:00:00.000Z', '2027-01-02T00:00:00.000Z']);
  });
});

describe('what is due', () => {
  const daily = schedule('day', '2027-01-01T09:00:00Z');

  it('waits for the next occurrence, then runs it', () => {
    expect(dueOccurrence(daily, 1, new Date('2027-01-01T08:59:59Z'))).toEqual({
      kind: 'wait',
      at: new Date('2027-01-01T09:00:00Z'),
    });
    expect(dueOccurrence(daily, 1, new Date('2027-01-01T09:00:00Z'))).toEqual({
      kind: 'run',
      occurrence: 1,
      skipped: 0,
    });
    // Late by less than a period: still run.
    expect(dueOccurrence(daily, 1, new Date('2027-01-02T08:59:00Z'))).toMatchObject({ occurrence: 1, skipped: 0 });
  });

  it('skips occurrences missed by more than one period instead of running them in a burst', () => {
    expect(dueOccurrence(daily, 1, new Date('2027-01-08T10:00:00Z'))).toEqual({
      kind: 'run',
      occurrence: 8,
      skipped: 7,
    });
  });

  it('ends when the schedule has nothing left', () => {
    const twice = { ...daily, maxOccurrences: 2 };
    expect(dueOccurrence(twice, 3, new Date('2030-01-01T00:00:00Z'))).toEqual({ kind: 'end' });
    // The last one missed by more than a period is still the last one in the schedule: it runs.
    expect(dueOccurrence(twice, 1, new Date('2030-01-01T00:00:00Z'))).toEqual({
      kind: 'run',
      occurrence: 2,
      skipped: 1,
    });
  });
});

describe('checking a schedule', () => {
  const now = new Date('2027-01-01T00:00:00Z');
  it.each([
    [{ interval: 0 }, /interval/],
    [{ interval: 13, every: 'month' as const }, /1 to 12/],
    [{ startAt: new Date('2026-12-31T23:00:00Z') }, /past/],
    [{ endAt: new Date('2027-01-01T00:00:00Z') }, /endAt/],
  ])('refuses %o with invalid_schedule', (change, message) => {
    expect(() => checkSchedule({ ...schedule('day', '2027-01-01T00:00:00Z'), ...change }, now)).toThrow(message);
  });
});

it('puts the occurrence number and its UTC date into externalId', () => {
  expect(invoiceInputOf({ amount: '5', externalId: 'rent-{n}-{date}' }, 12, new Date('2027-02-28T23:59:00Z'))).toEqual({
    amount: '5',
    externalId: 'rent-12-2027-02-28',
  });
  expect(invoiceInputOf({ amount: '5' }, 1, new Date())).toEqual({ amount: '5' });
});
