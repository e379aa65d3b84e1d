import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidRepeater, nextOccurrence, type RepeatingTask } from '../../src/domain/repeat.js';
import { parseRepeatRule } from '../../src/domain/repeat-rule.js';
import type { Micros } from '../../src/domain/time.js';
import { instantOfWallClock, offsetMinutesAt, startOfDay, wallClockOf } from '../../src/domain/zone.js';

const BERLIN = 'Europe/Berlin';
const NEW_YORK = 'America/New_York';

/** `2026-03-23 09:00` (seconds optional) on the zone's wall clock. */
function local(text: string, zone: string): Micros {
  const match = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (match === null) throw new Error(`bad test date: ${text}`);
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0));
  return instantOfWallClock(
    { year: year ?? 0, month: month ?? 0, day: day ?? 0, hour: hour ?? 0, minute: minute ?? 0, second: second ?? 0 },
    zone,
  );
}

const twoDigits = (value: number): string => String(value).padStart(2, '0');

/** The instant as `2026-03-30 09:00 +0200` in the zone: date, time and the offset it had then. */
function show(us: Micros | null, zone: string): string | null {
  if (us === null) return null;
  const clock = wallClockOf(us, zone);
  const offset = offsetMinutesAt(us, zone);
  const sign = offset < 0 ? '-' : '+';
  const offsetText = `${sign}${twoDigits(Math.floor(Math.abs(offset) / 60))}${twoDigits(Math.abs(offset) % 60)}`;
  const date = `${clock.year}-${twoDigits(clock.month)}-${twoDigits(clock.day)}`;
  const time = `${twoDigits(clock.hour)}:${twoDigits(clock.minute)}${clock.second === 0 ? '' : `:${twoDigits(clock.second)}`}`;
  return `${date} ${time} ${offsetText}`;
}

interface Shown {
  readonly start: string | null;
  readonly end: string | null;
  readonly repeater: string;
}

/** Completes the task again and again as task-rules does, showing each next occurrence; null once the series ends. */
function completeRepeatedly(task: RepeatingTask, zone: string, times: number): (Shown | null)[] {
  const shown: (Shown | null)[] = [];
  let current: RepeatingTask | null = task;
  for (let step = 0; step < times; step += 1) {
    const next: ReturnType<typeof nextOccurrence> = current === null ? null : nextOccurrence(current, zone);
    shown.push(
      next === null ? null : { start: show(next.startAt, zone), end: show(next.endAt, zone), repeater: next.repeater },
    );
    current = next === null || current === null ? null : { ...current, ...next };
  }
  return shown;
}

/** The start dates of the next `times` occurrences of a timed task. */
function starts(repeater: string, start: string, zone: string, times: number): (string | null)[] {
  const task: RepeatingTask = { startAt: local(start, zone), endAt: null, allDay: false, repeater };
  return completeRepeatedly(task, zone, times).map((next) => next?.start ?? null);
}

describe('isValidRepeater', () => {
  it.each([
    'FREQ=DAILY',
    'RRULE:FREQ=WEEKLY;BYDAY=MO',
    'rrule:freq=weekly;byday=mo,we,fr',
    'INTERVAL=2;FREQ=DAILY',
    'FREQ=DAILY;INTERVAL=2;COUNT=10',
    'FREQ=DAILY;COUNT=01',
    'FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU',
    'FREQ=WEEKLY;BYMONTH=1,2,12',
    'FREQ=MONTHLY;BYDAY=-1FR',
    'FREQ=MONTHLY;BYDAY=+2TU,3WE',
    'FREQ=MONTHLY;BYMONTHDAY=-1',
    'FREQ=MONTHLY;BYMONTHDAY=1,15,+31,-31',
    'FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13',
    'FREQ=YEARLY',
    'FREQ=YEARLY;BYDAY=20MO,-53SU',
    'FREQ=MONTHLY;BYDAY=5MO,-5FR',
    'FREQ=YEARLY;BYMONTH=2;BYDAY=5MO',
    'FREQ=YEARLY;BYMONTH=11;BYDAY=4TH',
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29',
    // Accepted though it never occurs: nextOccurrence gives up on it.
    'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31',
    'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR',
    'FREQ=DAILY;UNTIL=20261231',
    'FREQ=DAILY;UNTIL=20240229',
    'FREQ=DAILY;UNTIL=20261231T235959Z',
    'FREQ=DAILY;until=20261231t235959z',
    'FREQ=DAILY;UNTIL=20261231T235959',
    `FREQ=DAILY;BYMONTHDAY=${'1,'.repeat(485)}1`,
  ])('accepts %s', (rule) => {
    expect(isValidRepeater(rule)).toBe(true);
  });

  it.each([
    '',
    'RRULE:',
    'RRULE',
    'FREQ=HOURLY',
    'FREQ=MINUTELY',
    'FREQ=SECONDLY',
    'FREQ=FORTNIGHTLY',
    'FREQ=',
    'INTERVAL=2',
    'FREQ=DAILY;FREQ=DAILY',
    'FREQ=DAILY;FREQ=WEEKLY',
    'FREQ=DAILY;INTERVAL=1;interval=2',
    'FREQ=DAILY;INTERVAL=0',
    'FREQ=DAILY;INTERVAL=-1',
    'FREQ=DAILY;INTERVAL=+1',
    'FREQ=DAILY;INTERVAL=1.5',
    'FREQ=DAILY;INTERVAL=99999999999999999999',
    'FREQ=DAILY;COUNT=0',
    'FREQ=DAILY;COUNT=',
    'FREQ=DAILY;COUNT=2;UNTIL=20260101',
    'FREQ=DAILY;UNTIL=20260230',
    'FREQ=DAILY;UNTIL=20250229',
    'FREQ=DAILY;UNTIL=20261301',
    'FREQ=DAILY;UNTIL=2026-01-01',
    'FREQ=DAILY;UNTIL=20260101T240000Z',
    'FREQ=DAILY;UNTIL=20260101T236000Z',
    'FREQ=DAILY;UNTIL=20260101T235960Z',
    'FREQ=DAILY;UNTIL=20260101T1200Z',
    'FREQ=DAILY;UNTIL=20260101T120000+0100',
    'FREQ=DAILY;UNTIL=20260101Z',
    'FREQ=WEEKLY;BYDAY=XX',
    'FREQ=WEEKLY;BYDAY=MON',
    'FREQ=WEEKLY;BYDAY=1MO',
    'FREQ=DAILY;BYDAY=-1FR',
    'FREQ=MONTHLY;BYDAY=0MO',
    'FREQ=MONTHLY;BYDAY=+0MO',
    'FREQ=YEARLY;BYDAY=54MO',
    'FREQ=YEARLY;BYDAY=100MO',
    // No month has a sixth Monday.
    'FREQ=MONTHLY;BYDAY=6MO',
    'FREQ=MONTHLY;BYDAY=MO,-6MO',
    'FREQ=YEARLY;BYMONTH=1;BYDAY=6MO',
    'FREQ=MONTHLY;BYDAY=',
    'FREQ=MONTHLY;BYDAY=MO,,FR',
    'FREQ=MONTHLY;BYDAY=MO,',
    'FREQ=MONTHLY;BYMONTHDAY=0',
    'FREQ=MONTHLY;BYMONTHDAY=32',
    'FREQ=MONTHLY;BYMONTHDAY=-32',
    'FREQ=MONTHLY;BYMONTHDAY=--1',
    'FREQ=WEEKLY;BYMONTHDAY=1',
    'FREQ=YEARLY;BYMONTH=13',
    'FREQ=YEARLY;BYMONTH=0',
    'FREQ=YEARLY;BYMONTH=+1',
    'FREQ=YEARLY;BYMONTH=-1',
    'FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-1',
    'FREQ=DAILY;BYHOUR=9',
    'FREQ=DAILY;BYMINUTE=0',
    'FREQ=DAILY;BYSECOND=0',
    'FREQ=YEARLY;BYWEEKNO=1',
    'FREQ=YEARLY;BYYEARDAY=1',
    'FREQ=DAILY;WKST=XX',
    'FREQ=DAILY;WKST=1MO',
    'FREQ=DAILY;X-NAME=1',
    'FREQ=DAILY;',
    ';FREQ=DAILY',
    'FREQ=DAILY;;COUNT=2',
    'FREQ=DAILY;=1',
    'FREQ=DAILY;COUNT',
    ' FREQ=DAILY',
    'FREQ=DAILY ',
    'FREQ = DAILY',
    'FREQ=DAILY\n',
    // Dotless ı upper-cases to I: must not turn into DAILY.
    'FREQ=DAıLY',
    'RRULE:RRULE:FREQ=DAILY',
    'DTSTART:20260101T000000Z',
    'FREQ=DAILY=1',
    `FREQ=DAILY;BYMONTHDAY=${'1,'.repeat(490)}1`,
  ])('rejects %j', (rule) => {
    expect(isValidRepeater(rule)).toBe(false);
  });

  it('limits the text to 1000 characters', () => {
    const padded = (length: number): string => `FREQ=DAILY;COUNT=${'0'.repeat(length - 18)}1`;
    expect(padded(1000)).toHaveLength(1000);
    expect(isValidRepeater(padded(1000))).toBe(true);
    expect(isValidRepeater(padded(1001))).toBe(false);
  });

  it('parses the parts into typed values', () => {
    expect(parseRepeatRule('RRULE:freq=monthly;interval=2;byday=-1fr,2MO;bymonth=1,7;wkst=su')).toEqual({
      frequency: 'MONTHLY',
      interval: 2,
      count: null,
      until: null,
      byDay: [
        { weekday: 4, ordinal: -1 },
        { weekday: 0, ordinal: 2 },
      ],
      byMonthDay: null,
      byMonth: [1, 7],
      weekStart: 6,
    });
    expect(parseRepeatRule('FREQ=DAILY;UNTIL=20260503')?.until).toEqual({ kind: 'date', year: 2026, month: 5, day: 3 });
    expect(parseRepeatRule('FREQ=DAILY;UNTIL=20260503T070000Z')?.until).toEqual({
      kind: 'utc',
      at: Date.UTC(2026, 4, 3, 7) * 1000,
    });
    expect(parseRepeatRule('FREQ=DAILY;UNTIL=20260503T070000')?.until).toEqual({
      kind: 'local',
      wallClock: { year: 2026, month: 5, day: 3, hour: 7, minute: 0, second: 0 },
    });
  });
});

describe('nextOccurrence: wall-clock time across DST', () => {
  it('keeps a weekly 09:00 Europe/Berlin task at 09:00 across the March change', () => {
    expect(starts('FREQ=WEEKLY', '2026-03-16 09:00', BERLIN, 3)).toEqual([
      '2026-03-23 09:00 +0100',
      '2026-03-30 09:00 +0200',
      '2026-04-06 09:00 +0200',
    ]);
  });

  it('keeps a weekly 09:00 Europe/Berlin task at 09:00 across the October change', () => {
    expect(starts('FREQ=WEEKLY', '2026-10-12 09:00', BERLIN, 3)).toEqual([
      '2026-10-19 09:00 +0200',
      '2026-10-26 09:00 +0100',
      '2026-11-02 09:00 +0100',
    ]);
  });

  it('keeps a weekly 09:00 America/New_York task at 09:00 across both changes', () => {
    expect(starts('FREQ=WEEKLY', '2026-03-01 09:00', NEW_YORK, 2)).toEqual([
      '2026-03-08 09:00 -0400',
      '2026-03-15 09:00 -0400',
    ]);
    expect(starts('FREQ=WEEKLY', '2026-02-25 09:00', NEW_YORK, 2)).toEqual([
      '2026-03-04 09:00 -0500',
      '2026-03-11 09:00 -0400',
    ]);
    expect(starts('FREQ=WEEKLY', '2026-10-25 09:00', NEW_YORK, 2)).toEqual([
      '2026-11-01 09:00 -0500',
      '2026-11-08 09:00 -0500',
    ]);
  });

  it('moves a time skipped by spring-forward on by the gap, and goes on from there', () => {
    expect(starts('FREQ=DAILY', '2026-03-07 02:30', NEW_YORK, 2)).toEqual([
      '2026-03-08 03:30 -0400',
      '2026-03-09 03:30 -0400',
    ]);
  });

  it('takes the first of a time that occurs twice in autumn', () => {
    expect(starts('FREQ=DAILY', '2026-10-31 01:30', NEW_YORK, 2)).toEqual([
      '2026-11-01 01:30 -0400',
      '2026-11-02 01:30 -0500',
    ]);
  });

  it('keeps an all-day daily task at local midnight across DST', () => {
    const task: RepeatingTask = {
      startAt: local('2026-03-28 00:00', BERLIN),
      endAt: null,
      allDay: true,
      repeater: 'FREQ=DAILY',
    };
    expect(completeRepeatedly(task, BERLIN, 3).map((next) => next?.start)).toEqual([
      '2026-03-29 00:00 +0100',
      '2026-03-30 00:00 +0200',
      '2026-03-31 00:00 +0200',
    ]);
    const autumn = { ...task, startAt: local('2026-10-24 00:00', BERLIN) };
    expect(completeRepeatedly(autumn, BERLIN, 2).map((next) => next?.start)).toEqual([
      '2026-10-25 00:00 +0200',
      '2026-10-26 00:00 +0100',
    ]);
  });

  it('puts an all-day date whose midnight is skipped at the first instant of that day', () => {
    // Chile springs forward at midnight: 2026-09-06 starts at 01:00.
    const zone = 'America/Santiago';
    const task: RepeatingTask = {
      startAt: local('2026-09-05 00:00', zone),
      endAt: null,
      allDay: true,
      repeater: 'FREQ=DAILY',
    };
    const next = nextOccurrence(task, zone);
    expect(show(next?.startAt ?? null, zone)).toBe('2026-09-06 01:00 -0300');
    expect(next?.startAt).toBe(startOfDay(local('2026-09-06 12:00', zone), zone));
  });
});

describe('nextOccurrence: dates the rule selects', () => {
  it('skips months without a 31st for a monthly task on the 31st', () => {
    expect(starts('FREQ=MONTHLY', '2026-01-31 09:00', BERLIN, 6)).toEqual([
      '2026-03-31 09:00 +0200',
      '2026-05-31 09:00 +0200',
      '2026-07-31 09:00 +0200',
      '2026-08-31 09:00 +0200',
      '2026-10-31 09:00 +0100',
      '2026-12-31 09:00 +0100',
    ]);
  });

  it('takes the last day of every month for BYMONTHDAY=-1', () => {
    expect(starts('FREQ=MONTHLY;BYMONTHDAY=-1', '2027-12-31 18:00', 'UTC', 4)).toEqual([
      '2028-01-31 18:00 +0000',
      '2028-02-29 18:00 +0000',
      '2028-03-31 18:00 +0000',
      '2028-04-30 18:00 +0000',
    ]);
  });

  it('takes every other day or week for INTERVAL=2', () => {
    expect(starts('FREQ=DAILY;INTERVAL=2', '2026-03-27 07:15', BERLIN, 3)).toEqual([
      '2026-03-29 07:15 +0200',
      '2026-03-31 07:15 +0200',
      '2026-04-02 07:15 +0200',
    ]);
    expect(starts('FREQ=WEEKLY;INTERVAL=2', '2026-03-02 09:00', BERLIN, 2)).toEqual([
      '2026-03-16 09:00 +0100',
      '2026-03-30 09:00 +0200',
    ]);
    expect(starts('FREQ=MONTHLY;INTERVAL=2', '2026-07-31 09:00', 'UTC', 2)).toEqual([
      // September and November have no 31st.
      '2027-01-31 09:00 +0000',
      '2027-03-31 09:00 +0000',
    ]);
  });

  it('walks BYDAY=MO,WE,FR day by day, the anchor itself excluded', () => {
    expect(starts('FREQ=WEEKLY;BYDAY=MO,WE,FR', '2026-03-02 09:00', BERLIN, 4)).toEqual([
      '2026-03-04 09:00 +0100',
      '2026-03-06 09:00 +0100',
      '2026-03-09 09:00 +0100',
      '2026-03-11 09:00 +0100',
    ]);
    // An anchor the rule does not select (a Sunday) still counts as DTSTART.
    expect(starts('FREQ=WEEKLY;BYDAY=MO,WE,FR', '2026-03-01 09:00', BERLIN, 1)).toEqual(['2026-03-02 09:00 +0100']);
    expect(starts('FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR', '2026-03-06 09:00', BERLIN, 1)).toEqual([
      '2026-03-09 09:00 +0100',
    ]);
  });

  it('groups days into weeks starting on WKST (RFC 5545 example)', () => {
    // DTSTART 1997-08-05 (a Tuesday): Aug 5, 10, 19, 24 with WKST=MO; Aug 5, 17, 19, 31 with WKST=SU.
    expect(starts('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=MO', '1997-08-05 09:00', NEW_YORK, 3)).toEqual([
      '1997-08-10 09:00 -0400',
      '1997-08-19 09:00 -0400',
      '1997-08-24 09:00 -0400',
    ]);
    expect(starts('FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU;WKST=SU', '1997-08-05 09:00', NEW_YORK, 3)).toEqual([
      '1997-08-17 09:00 -0400',
      '1997-08-19 09:00 -0400',
      '1997-08-31 09:00 -0400',
    ]);
  });

  it('takes the last Friday of the month for MONTHLY;BYDAY=-1FR', () => {
    expect(starts('FREQ=MONTHLY;BYDAY=-1FR', '2026-01-30 16:00', BERLIN, 4)).toEqual([
      '2026-02-27 16:00 +0100',
      '2026-03-27 16:00 +0100',
      '2026-04-24 16:00 +0200',
      '2026-05-29 16:00 +0200',
    ]);
  });

  it('intersects BYDAY with BYMONTHDAY (Friday the 13th)', () => {
    expect(starts('FREQ=MONTHLY;BYDAY=FR;BYMONTHDAY=13', '2026-02-13 12:00', 'UTC', 2)).toEqual([
      '2026-03-13 12:00 +0000',
      '2026-11-13 12:00 +0000',
    ]);
  });

  it('counts a YEARLY ordinal in the year, or in the month with BYMONTH', () => {
    expect(starts('FREQ=YEARLY;BYDAY=1MO', '2026-01-05 09:00', 'UTC', 1)).toEqual(['2027-01-04 09:00 +0000']);
    expect(starts('FREQ=YEARLY;BYDAY=-1SU', '2026-12-27 09:00', 'UTC', 1)).toEqual(['2027-12-26 09:00 +0000']);
    expect(starts('FREQ=YEARLY;BYMONTH=11;BYDAY=4TH', '2026-11-26 12:00', NEW_YORK, 2)).toEqual([
      '2027-11-25 12:00 -0500',
      '2028-11-23 12:00 -0500',
    ]);
  });

  it('defaults YEARLY to the anchor date, and BYMONTH to the anchor day of the month', () => {
    expect(starts('FREQ=YEARLY', '2026-06-15 09:00', BERLIN, 1)).toEqual(['2027-06-15 09:00 +0200']);
    expect(starts('FREQ=YEARLY;BYMONTH=3,9', '2026-06-15 09:00', BERLIN, 2)).toEqual([
      '2026-09-15 09:00 +0200',
      '2027-03-15 09:00 +0100',
    ]);
  });

  // Cross-checked with python-dateutil's rrule, an independent RFC 5545 implementation.
  it.each([
    [
      'FREQ=YEARLY;BYDAY=35FR,-7MO;INTERVAL=4',
      '2021-08-10',
      ['2021-08-27', '2021-11-15', '2025-08-29', '2025-11-17', '2029-08-31'],
    ],
    [
      'INTERVAL=1;FREQ=YEARLY;BYMONTHDAY=-9;BYDAY=-28MO',
      '2026-02-28',
      ['2026-06-22', '2037-06-22', '2043-06-22', '2048-06-22', '2054-06-22'],
    ],
    [
      'BYMONTH=8;BYMONTHDAY=14,-21,2;FREQ=YEARLY;BYDAY=1TU,4FR',
      '2026-10-21',
      ['2033-08-02', '2039-08-02', '2044-08-02', '2050-08-02', '2061-08-02'],
    ],
    [
      'WKST=SA;INTERVAL=4;FREQ=WEEKLY;BYDAY=WE,TU,TU',
      '2027-05-03',
      ['2027-05-04', '2027-05-05', '2027-06-01', '2027-06-02', '2027-06-29'],
    ],
    [
      'WKST=FR;BYDAY=TH,TU;INTERVAL=2;FREQ=WEEKLY',
      '2023-02-13',
      ['2023-02-14', '2023-02-16', '2023-02-28', '2023-03-02', '2023-03-14'],
    ],
    [
      'BYMONTHDAY=-15;FREQ=MONTHLY',
      '2021-08-10',
      ['2021-08-17', '2021-09-16', '2021-10-17', '2021-11-16', '2021-12-17'],
    ],
    [
      'BYDAY=SA;WKST=FR;FREQ=MONTHLY;INTERVAL=2',
      '2028-12-22',
      ['2028-12-23', '2028-12-30', '2029-02-03', '2029-02-10', '2029-02-17'],
    ],
    [
      'BYDAY=-3TU;BYMONTHDAY=-16;BYMONTH=7;FREQ=MONTHLY;WKST=SU;INTERVAL=2',
      '2029-01-23',
      ['2030-07-16', '2041-07-16', '2047-07-16', '2052-07-16', '2058-07-16'],
    ],
  ])('%s from %s', (rule, start, expected) => {
    expect(starts(rule, `${start} 09:00`, 'UTC', expected.length)).toEqual(
      expected.map((date) => `${date} 09:00 +0000`),
    );
  });

  it('moves a yearly task on 29 February to the next leap year', () => {
    expect(starts('FREQ=YEARLY', '2024-02-29 09:00', BERLIN, 2)).toEqual([
      '2028-02-29 09:00 +0100',
      '2032-02-29 09:00 +0100',
    ]);
    // 2100 is no leap year: eight years to the next one.
    expect(starts('FREQ=YEARLY', '2096-02-29 09:00', 'UTC', 1)).toEqual(['2104-02-29 09:00 +0000']);
    expect(starts('FREQ=YEARLY;INTERVAL=3', '2024-02-29 09:00', 'UTC', 1)).toEqual(['2036-02-29 09:00 +0000']);
    expect(starts('FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29', '2096-02-29 09:00', 'UTC', 1)).toEqual([
      '2104-02-29 09:00 +0000',
    ]);
  });

  it('gives up on a rule that never occurs', () => {
    const began = performance.now();
    expect(starts('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=31', '2026-01-31 09:00', BERLIN, 1)).toEqual([null]);
    expect(starts('FREQ=MONTHLY;BYMONTHDAY=30;BYMONTH=2', '2026-01-30 09:00', BERLIN, 1)).toEqual([null]);
    expect(starts('FREQ=YEARLY;BYMONTHDAY=31;BYDAY=1MO', '2026-01-30 09:00', BERLIN, 1)).toEqual([null]);
    expect(starts('FREQ=DAILY;BYMONTHDAY=31;BYMONTH=4', '2026-01-30 09:00', BERLIN, 1)).toEqual([null]);
    expect(starts('FREQ=MONTHLY;BYDAY=5MO;BYMONTH=2;BYMONTHDAY=1', '2026-01-30 09:00', BERLIN, 1)).toEqual([null]);
    expect(performance.now() - began).toBeLessThan(1000);
  });

  it('gives up on a rule that never occurs: no next date, for each of 1000 completions', () => {
    // A 53rd weekday of the year falls on 30 or 31 December, never on days 1 to 28.
    const days = Array.from({ length: 28 }, (_unused, index) => index + 1).join(',');
    const never = `FREQ=YEARLY;BYMONTHDAY=${days};BYDAY=53MO,53TU,53WE,53TH,53FR,53SA,53SU`;
    const task: RepeatingTask = {
      startAt: local('2026-05-01 09:00', BERLIN),
      endAt: null,
      allDay: false,
      repeater: never,
    };
    // The search is bounded by work (MAX_SEARCH_WORK), not by periods: unbounded, these 1000 took
    // 16-25 s. What it costs the server is measured where time belongs, in the reliability suite's
    // never-matching-repeat attack (docs/reliability.md), not here.
    for (let index = 0; index < 1000; index += 1) expect(nextOccurrence(task, BERLIN)).toBeNull();
  });

  it('still finds rare dates that need many days looked at', () => {
    // 53 Mondays: a year starting on a Monday (2029), or a leap year starting on a Sunday.
    expect(starts('FREQ=YEARLY;BYDAY=53MO', '2024-12-30 09:00', 'UTC', 1)).toEqual(['2029-12-31 09:00 +0000']);
    // Friday the 13th of February: 2026, then 2032.
    expect(starts('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=13;BYDAY=FR', '2026-02-13 09:00', 'UTC', 1)).toEqual([
      '2032-02-13 09:00 +0000',
    ]);
    // 29 February on a Monday: 2016, then 2044.
    expect(starts('FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;BYDAY=MO', '2016-02-29 09:00', 'UTC', 1)).toEqual([
      '2044-02-29 09:00 +0000',
    ]);
  });

  it('gives up past the year 9999, even for a huge INTERVAL', () => {
    expect(starts(`FREQ=YEARLY;INTERVAL=${Number.MAX_SAFE_INTEGER}`, '2026-01-30 09:00', 'UTC', 1)).toEqual([null]);
    expect(starts(`FREQ=DAILY;INTERVAL=${Number.MAX_SAFE_INTEGER}`, '2026-01-30 09:00', 'UTC', 1)).toEqual([null]);
    expect(starts('FREQ=MONTHLY;INTERVAL=100000', '2026-01-30 09:00', 'UTC', 1)).toEqual([null]);
    expect(starts('FREQ=YEARLY;INTERVAL=7974', '2026-01-30 09:00', 'UTC', 1)).toEqual([null]);
    expect(starts('FREQ=YEARLY;INTERVAL=7973', '2026-01-30 09:00', 'UTC', 1)).toEqual(['9999-01-30 09:00 +0000']);
  });
});

describe('nextOccurrence: end of the series', () => {
  it('counts COUNT down, keeping the rest of the text, and ends after the last occurrence', () => {
    const task: RepeatingTask = {
      startAt: local('2026-05-01 09:00', BERLIN),
      endAt: null,
      allDay: false,
      repeater: 'RRULE:freq=daily;Count=3;interval=1',
    };
    expect(completeRepeatedly(task, BERLIN, 3)).toEqual([
      { start: '2026-05-02 09:00 +0200', end: null, repeater: 'RRULE:freq=daily;Count=2;interval=1' },
      { start: '2026-05-03 09:00 +0200', end: null, repeater: 'RRULE:freq=daily;Count=1;interval=1' },
      null,
    ]);
    expect(nextOccurrence({ ...task, repeater: 'FREQ=DAILY;COUNT=1' }, BERLIN)).toBeNull();
  });

  it('keeps the rule text unchanged when there is no COUNT', () => {
    const task: RepeatingTask = {
      startAt: local('2026-05-01 09:00', BERLIN),
      endAt: null,
      allDay: false,
      repeater: 'freq=Weekly',
    };
    expect(nextOccurrence(task, BERLIN)?.repeater).toBe('freq=Weekly');
  });

  it('ends at UNTIL, which is inclusive, in each of its three forms', () => {
    // A date: through the end of that local day.
    expect(starts('FREQ=DAILY;UNTIL=20260503', '2026-05-01 23:30', BERLIN, 3)).toEqual([
      '2026-05-02 23:30 +0200',
      '2026-05-03 23:30 +0200',
      null,
    ]);
    // Floating: the account's wall clock.
    expect(starts('FREQ=DAILY;UNTIL=20260503T090000', '2026-05-01 09:00', BERLIN, 3)).toEqual([
      '2026-05-02 09:00 +0200',
      '2026-05-03 09:00 +0200',
      null,
    ]);
    expect(starts('FREQ=DAILY;UNTIL=20260503T085959', '2026-05-01 09:00', BERLIN, 2)).toEqual([
      '2026-05-02 09:00 +0200',
      null,
    ]);
    // UTC: 07:00Z is 09:00 in Berlin in May.
    expect(starts('FREQ=DAILY;UNTIL=20260503T070000Z', '2026-05-01 09:00', BERLIN, 3)).toEqual([
      '2026-05-02 09:00 +0200',
      '2026-05-03 09:00 +0200',
      null,
    ]);
    expect(starts('FREQ=DAILY;UNTIL=20260503T065959Z', '2026-05-01 09:00', BERLIN, 2)).toEqual([
      '2026-05-02 09:00 +0200',
      null,
    ]);
  });

  it('moves nothing when the task has no date', () => {
    expect(nextOccurrence({ startAt: null, endAt: null, allDay: false, repeater: 'FREQ=DAILY' }, BERLIN)).toBeNull();
  });

  it('ends the series for a stored rule it does not support', () => {
    const task: RepeatingTask = {
      startAt: local('2026-05-01 09:00', BERLIN),
      endAt: null,
      allDay: false,
      repeater: 'FREQ=HOURLY',
    };
    expect(nextOccurrence(task, BERLIN)).toBeNull();
  });
});

describe('nextOccurrence: the second date', () => {
  it('keeps end_at at its wall-clock distance from start_at', () => {
    const task: RepeatingTask = {
      startAt: local('2026-03-23 09:00', BERLIN),
      endAt: local('2026-03-23 10:30', BERLIN),
      allDay: false,
      repeater: 'FREQ=WEEKLY',
    };
    expect(completeRepeatedly(task, BERLIN, 2)).toEqual([
      { start: '2026-03-30 09:00 +0200', end: '2026-03-30 10:30 +0200', repeater: 'FREQ=WEEKLY' },
      { start: '2026-04-06 09:00 +0200', end: '2026-04-06 10:30 +0200', repeater: 'FREQ=WEEKLY' },
    ]);
  });

  it('keeps a distance that spans the DST change in wall-clock terms', () => {
    // 2026-03-28 22:00 to 2026-03-29 08:00 is 10 local hours (9 real ones); so is the next week's.
    const task: RepeatingTask = {
      startAt: local('2026-03-21 22:00', BERLIN),
      endAt: local('2026-03-22 08:00', BERLIN),
      allDay: false,
      repeater: 'FREQ=WEEKLY',
    };
    const [next] = completeRepeatedly(task, BERLIN, 1);
    expect(next).toEqual({ start: '2026-03-28 22:00 +0100', end: '2026-03-29 08:00 +0200', repeater: 'FREQ=WEEKLY' });
  });

  it('keeps an all-day task spanning two days at two local days', () => {
    const task: RepeatingTask = {
      startAt: local('2026-03-27 00:00', BERLIN),
      endAt: local('2026-03-29 00:00', BERLIN),
      allDay: true,
      repeater: 'FREQ=DAILY',
    };
    expect(completeRepeatedly(task, BERLIN, 2)).toEqual([
      { start: '2026-03-28 00:00 +0100', end: '2026-03-30 00:00 +0200', repeater: 'FREQ=DAILY' },
      { start: '2026-03-29 00:00 +0100', end: '2026-03-31 00:00 +0200', repeater: 'FREQ=DAILY' },
    ]);
  });

  it('anchors on end_at when there is no start_at', () => {
    const task: RepeatingTask = {
      startAt: null,
      endAt: local('2026-03-27 17:00', BERLIN),
      allDay: false,
      repeater: 'FREQ=WEEKLY',
    };
    expect(completeRepeatedly(task, BERLIN, 1)).toEqual([
      { start: null, end: '2026-04-03 17:00 +0200', repeater: 'FREQ=WEEKLY' },
    ]);
  });

  it('keeps the fraction of a second of both dates', () => {
    const startAt = local('2026-03-23 09:00', BERLIN) + 123_456;
    const endAt = local('2026-03-23 10:00', BERLIN) + 654_321;
    const next = nextOccurrence({ startAt, endAt, allDay: false, repeater: 'FREQ=WEEKLY' }, BERLIN);
    expect(next?.startAt).toBe(local('2026-03-30 09:00', BERLIN) + 123_456);
    expect(next?.endAt).toBe(local('2026-03-30 10:00', BERLIN) + 654_321);
  });
});

describe('nextOccurrence: properties', () => {
  const zones = ['UTC', BERLIN, NEW_YORK, 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/Santiago', 'Pacific/Apia'];
  const rules = [
    'FREQ=DAILY',
    'FREQ=WEEKLY;BYDAY=MO,TH',
    'FREQ=MONTHLY;BYMONTHDAY=-1',
    'FREQ=MONTHLY;BYDAY=2WE',
    'FREQ=YEARLY',
  ];
  // 1990 to 2100, whole seconds.
  const instants = fc.integer({ min: 631_152_000, max: 4_102_444_800 }).map((seconds) => seconds * 1_000_000);

  it('lands strictly later, on a later local date, at the same local time unless that time was skipped', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), fc.constantFrom(...rules), (startAt, zone, repeater) => {
        const next = nextOccurrence({ startAt, endAt: null, allDay: false, repeater }, zone);
        expect(next).not.toBeNull();
        const nextStart = next?.startAt ?? 0;
        expect(nextStart).toBeGreaterThan(startAt);
        const before = wallClockOf(startAt, zone);
        const after = wallClockOf(nextStart, zone);
        const sameTime = after.hour === before.hour && after.minute === before.minute && after.second === before.second;
        // A time skipped by a forward change lands on a different clock reading: its instant then differs.
        if (!sameTime)
          expect(
            instantOfWallClock({ ...after, hour: before.hour, minute: before.minute, second: before.second }, zone),
          ).toBe(nextStart);
      }),
    );
  });

  it('keeps all-day dates on local midnights', () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...zones), fc.constantFrom(...rules), (instant, zone, repeater) => {
        const startAt = startOfDay(instant, zone);
        const next = nextOccurrence({ startAt, endAt: startAt, allDay: true, repeater }, zone);
        const nextStart = next?.startAt ?? 0;
        expect(nextStart).toBe(startOfDay(nextStart, zone));
        expect(next?.endAt).toBe(nextStart);
      }),
    );
  });
});
