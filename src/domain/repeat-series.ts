/**
 * Which dates a recurrence rule selects. Pure calendar arithmetic on day numbers (days since
 * 1970-01-01 in the proleptic Gregorian calendar), with no time zone: the series runs on the
 * wall clock, and every occurrence shares DTSTART's time of day, so only dates need choosing.
 */
import { ordinalsCountInMonth, type RepeatRule } from './repeat-rule.js';
import { MICROS_PER_DAY } from './time.js';
import { daysInMonth, instantAtOffset, wallClockAtOffset } from './zone.js';

/** A date without time or zone. */
export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** The search for an occurrence covers at least this many periods of the rule (INTERVAL included)… */
const MIN_PERIODS_SEARCHED = 1000;
/** …and at least ten years of days (leap days included), for rare dates such as 29 February. */
const MIN_DAYS_SEARCHED = 3653;
/**
 * …but never more work than this: days of the month looked at plus months walked. A rule that
 * can never occur (`BYMONTHDAY=1,…,28;BYDAY=53MO,…`) would otherwise look at 28 days of each of
 * 12,000 months per completion, and an array of 1000 completions blocks the process for seconds.
 * This still covers the ten years above for any rule (3,653 days and 120 months), and over
 * twenty years of a rule that looks at every day: real rules find their next date long before.
 */
const MAX_SEARCH_WORK = 8000;

/** The last year a date-time can be written in (the wire format and UNTIL have four-digit years). */
const LAST_YEAR = 9999;

/*
 * Day numbers via zone.ts's civil arithmetic at offset zero: the UTC clock shows exactly the
 * calendar, so no zone rule enters.
 */
export function dayNumberOf(date: CivilDate): number {
  return (
    instantAtOffset({ year: date.year, month: date.month, day: date.day, hour: 0, minute: 0, second: 0 }, 0) /
    MICROS_PER_DAY
  );
}

export function dateOfDayNumber(dayNumber: number): CivilDate {
  const { year, month, day } = wallClockAtOffset(dayNumber * MICROS_PER_DAY, 0);
  return { year, month, day };
}

/** 0 = Monday … 6 = Sunday, as WEEKDAY_NAMES; day 0 (1970-01-01) was a Thursday. */
function weekdayOf(dayNumber: number): number {
  return modulo(dayNumber + 3, 7);
}

function modulo(dividend: number, divisor: number): number {
  return ((dividend % divisor) + divisor) % divisor;
}

/** What a search may still do (see MAX_SEARCH_WORK); each day looked at and month walked costs 1. */
interface WorkBudget {
  left: number;
}

/**
 * The first day after `startDay` (DTSTART's date) that the series selects. Null when there is
 * none within MIN_PERIODS_SEARCHED periods and MIN_DAYS_SEARCHED days, whichever reaches further,
 * none within MAX_SEARCH_WORK, or none by the end of LAST_YEAR: the rule then counts as never
 * occurring again.
 */
export function firstDayOfSeriesAfter(rule: RepeatRule, startDay: number): number | null {
  const start = dateOfDayNumber(startDay);
  const selection = daySelectionOf(rule, start, startDay);
  const lastDay = dayNumberOf({ year: LAST_YEAR, month: 12, day: 31 });
  const budget: WorkBudget = { left: MAX_SEARCH_WORK };
  for (let periodsAhead = 0; budget.left > 0; periodsAhead += 1) {
    budget.left -= 1;
    const period = periodOf(rule, start, startDay, periodsAhead);
    if (period === null || period.firstDay > lastDay) return null;
    if (periodsAhead >= MIN_PERIODS_SEARCHED && period.firstDay > startDay + MIN_DAYS_SEARCHED) return null;
    const found = firstSelectedDay(
      selection,
      Math.max(period.firstDay, startDay + 1),
      Math.min(period.lastDay, lastDay),
      budget,
    );
    if (found !== null) return found;
  }
  return null;
}

interface Period {
  readonly firstDay: number;
  readonly lastDay: number;
}

/**
 * The days of the period `periodsAhead` × INTERVAL periods after the one holding DTSTART: a day,
 * a week (starting on WKST), a month or a year. Null once it would start after LAST_YEAR, checked
 * before any date is built, so a huge INTERVAL stays harmless.
 */
function periodOf(rule: RepeatRule, start: CivilDate, startDay: number, periodsAhead: number): Period | null {
  const step = periodsAhead * rule.interval;
  switch (rule.frequency) {
    case 'DAILY':
      return { firstDay: startDay + step, lastDay: startDay + step };
    case 'WEEKLY': {
      const firstDayOfStartWeek = startDay - modulo(weekdayOf(startDay) - rule.weekStart, 7);
      const firstDay = firstDayOfStartWeek + 7 * step;
      return { firstDay, lastDay: firstDay + 6 };
    }
    case 'MONTHLY': {
      const monthIndex = start.year * 12 + (start.month - 1) + step;
      const year = Math.floor(monthIndex / 12);
      if (year > LAST_YEAR) return null;
      const month = monthIndex - year * 12 + 1;
      const firstDay = dayNumberOf({ year, month, day: 1 });
      return { firstDay, lastDay: firstDay + daysInMonth(year, month) - 1 };
    }
    case 'YEARLY': {
      const year = start.year + step;
      if (year > LAST_YEAR) return null;
      return { firstDay: dayNumberOf({ year, month: 1, day: 1 }), lastDay: dayNumberOf({ year, month: 12, day: 31 }) };
    }
  }
}

/** Which ordinals of one weekday are selected. */
interface WeekdayChoice {
  /** BYDAY named it without an ordinal: every such weekday. */
  readonly every: boolean;
  readonly ordinals: ReadonlySet<number>;
}

/**
 * The rule's day selection, compiled so that checking a day costs the same however long the
 * rule's lists are. A null part selects everything; a day must pass every part.
 */
interface DaySelection {
  readonly months: ReadonlySet<number> | null;
  /** The selected days of the month, ascending and distinct, by month length (28 to 31). */
  readonly monthDays: ReadonlyMap<number, readonly number[]> | null;
  /** Indexed by weekday; null entry: that weekday is not selected. */
  readonly weekdays: readonly (WeekdayChoice | null)[] | null;
  /** A BYDAY ordinal counts in the year (YEARLY without BYMONTH), else in the month. */
  readonly ordinalsInYear: boolean;
}

const EVERY_DAY_OF_MONTH: readonly number[] = Array.from({ length: 31 }, (_, index) => index + 1);

/**
 * The rule's BY* parts with RFC 5545's defaults taken from DTSTART: WEEKLY without BYDAY takes
 * DTSTART's weekday; MONTHLY without BYDAY and BYMONTHDAY, DTSTART's day of the month; YEARLY
 * without either, DTSTART's day of the month in DTSTART's month (or in the BYMONTH months). For
 * this subset RFC 5545's expand and limit rules come down to the days that pass every part.
 */
function daySelectionOf(rule: RepeatRule, start: CivilDate, startDay: number): DaySelection {
  const picksDays = rule.byDay !== null || rule.byMonthDay !== null;
  const yearly = rule.frequency === 'YEARLY';
  const months = rule.byMonth ?? (yearly && !picksDays ? [start.month] : null);
  const monthDays = rule.byMonthDay ?? ((yearly || rule.frequency === 'MONTHLY') && !picksDays ? [start.day] : null);
  const weekdays =
    rule.byDay ?? (rule.frequency === 'WEEKLY' ? [{ weekday: weekdayOf(startDay), ordinal: null }] : null);
  return {
    months: months === null ? null : new Set(months),
    monthDays: monthDays === null ? null : monthDaysByLength(monthDays),
    weekdays:
      weekdays === null
        ? null
        : Array.from({ length: 7 }, (_, weekday) => {
            const chosen = weekdays.filter((selector) => selector.weekday === weekday);
            if (chosen.length === 0) return null;
            const ordinals = chosen.flatMap((selector) => (selector.ordinal === null ? [] : [selector.ordinal]));
            return { every: ordinals.length < chosen.length, ordinals: new Set(ordinals) };
          }),
    ordinalsInYear: yearly && !ordinalsCountInMonth(rule.frequency, rule.byMonth),
  };
}

/** BYMONTHDAY values (negative: from the month's end) as days of months of each possible length. */
function monthDaysByLength(monthDays: readonly number[]): ReadonlyMap<number, readonly number[]> {
  const byLength = new Map<number, readonly number[]>();
  for (let length = 28; length <= 31; length += 1) {
    const days = monthDays
      .map((monthDay) => (monthDay > 0 ? monthDay : length + monthDay + 1))
      .filter((day) => day <= length);
    byLength.set(
      length,
      [...new Set(days)].sort((a, b) => a - b),
    );
  }
  return byLength;
}

/**
 * The first selected day in [firstDay, lastDay], walking it month by month, or null when there is
 * none or the budget runs out first.
 */
function firstSelectedDay(
  selection: DaySelection,
  firstDay: number,
  lastDay: number,
  budget: WorkBudget,
): number | null {
  // One date conversion, then plain month arithmetic: this loop is the search's hot path.
  let { year, month, day: dayOfMonth } = dateOfDayNumber(firstDay);
  let yearSpan = yearSpanOf(year);
  for (let segmentStart = firstDay; segmentStart <= lastDay;) {
    budget.left -= 1;
    if (budget.left <= 0) return null;
    const monthLength = daysInMonth(year, month);
    const firstOfMonth = segmentStart - dayOfMonth + 1;
    const segmentEnd = Math.min(lastDay, firstOfMonth + monthLength - 1);
    if (selection.months === null || selection.months.has(month)) {
      const candidates =
        selection.monthDays === null ? EVERY_DAY_OF_MONTH : (selection.monthDays.get(monthLength) ?? []);
      for (const candidate of candidates) {
        const dayNumber = firstOfMonth + candidate - 1;
        if (dayNumber > segmentEnd) break;
        budget.left -= 1;
        if (
          dayNumber >= segmentStart &&
          matchesWeekday(selection, dayNumber, { yearSpan, dayOfMonth: candidate, monthLength })
        ) {
          return dayNumber;
        }
      }
      if (budget.left <= 0) return null;
    }
    segmentStart = segmentEnd + 1;
    dayOfMonth = 1;
    month = month === 12 ? 1 : month + 1;
    if (month === 1) {
      year += 1;
      yearSpan = yearSpanOf(year);
    }
  }
  return null;
}

/** A year as day numbers: its first day and its length. */
interface YearSpan {
  readonly firstDay: number;
  readonly length: number;
}

function yearSpanOf(year: number): YearSpan {
  const firstDay = dayNumberOf({ year, month: 1, day: 1 });
  return { firstDay, length: dayNumberOf({ year: year + 1, month: 1, day: 1 }) - firstDay };
}

function matchesWeekday(
  selection: DaySelection,
  dayNumber: number,
  where: { readonly yearSpan: YearSpan; readonly dayOfMonth: number; readonly monthLength: number },
): boolean {
  if (selection.weekdays === null) return true;
  const choice = selection.weekdays[weekdayOf(dayNumber)];
  if (choice === null || choice === undefined) return false;
  if (choice.every) return true;
  // The day's 0-based index in its month or year, and that span's length.
  let index = where.dayOfMonth - 1;
  let length = where.monthLength;
  if (selection.ordinalsInYear) {
    index = dayNumber - where.yearSpan.firstDay;
    length = where.yearSpan.length;
  }
  // 1 = the first such weekday of the span, -1 = its last.
  const fromStart = Math.floor(index / 7) + 1;
  const fromEnd = -(Math.floor((length - 1 - index) / 7) + 1);
  return choice.ordinals.has(fromStart) || choice.ordinals.has(fromEnd);
}
