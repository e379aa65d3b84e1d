/**
 * The subset of RFC 5545 recurrence rules (RRULE values) that tasks may repeat by, parsed into a
 * typed rule. Anything outside the subset is rejected rather than half-understood, so a stored
 * rule always means exactly what the series iterator does with it.
 */
import { daysInMonth, instantAtOffset, type WallClock } from './zone.js';
import type { Micros } from './time.js';

const FREQUENCIES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** RFC 5545 weekday names; a weekday is its index here: 0 = Monday … 6 = Sunday. */
const WEEKDAY_NAMES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;

/** One BYDAY item: a weekday, optionally only its n-th (negative: n-th from the end) in the month or year. */
export interface WeekdaySelector {
  readonly weekday: number;
  /** ±1..53; null: every such weekday. */
  readonly ordinal: number | null;
}

/** The last moment of the series, in one of the three forms RFC 5545 allows for UNTIL. */
export type RepeatUntil =
  /** `YYYYMMDD`: through the end of that local day. */
  | { readonly kind: 'date'; readonly year: number; readonly month: number; readonly day: number }
  /** `YYYYMMDDTHHMMSS`: a local (floating) date and time in the account's zone. */
  | { readonly kind: 'local'; readonly wallClock: WallClock }
  /** `YYYYMMDDTHHMMSSZ`: an absolute instant. */
  | { readonly kind: 'utc'; readonly at: Micros };

/** A parsed rule. The BY* lists are null when the rule does not give them (their defaults depend on DTSTART). */
export interface RepeatRule {
  readonly frequency: Frequency;
  readonly interval: number;
  /** Occurrences in the series, DTSTART included; null: unbounded by count. */
  readonly count: number | null;
  readonly until: RepeatUntil | null;
  readonly byDay: readonly WeekdaySelector[] | null;
  /** ±1..31; negative counts from the month's end (-1 = last day). */
  readonly byMonthDay: readonly number[] | null;
  /** 1..12. */
  readonly byMonth: readonly number[] | null;
  /** The weekday weeks start on (WKST, default Monday): decides which week a day belongs to for WEEKLY;INTERVAL>1. */
  readonly weekStart: number;
}

/** Longest rule text accepted; real rules are a few dozen characters. */
const MAX_RULE_LENGTH = 1000;

const PREFIX = 'RRULE:';
const PART_NAMES = new Set(['FREQ', 'INTERVAL', 'COUNT', 'UNTIL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'WKST']);
/** Printable ASCII without space: also keeps out letters that upper-case into ASCII (`ı` → `I`). */
const PRINTABLE_ASCII = /^[\x21-\x7E]+$/;
const POSITIVE_INTEGER = /^[0-9]+$/;
/** A BYDAY ordinal counted in the year: a year has at most 53 of a weekday… */
const MAX_ORDINAL_IN_YEAR = 53;
/** …a month at most 5. */
const MAX_ORDINAL_IN_MONTH = 5;
const MAX_MONTH_DAY = 31;

/** Whether the text is a recurrence rule of the supported subset. */
export function isValidRepeater(rule: string): boolean {
  return parseRepeatRule(rule) !== null;
}

/**
 * Parses an RRULE value (optionally prefixed `RRULE:`): `;`-separated `NAME=value` parts, names
 * and values case-insensitive, each part at most once, FREQ required. Null when the text is
 * anything else.
 */
export function parseRepeatRule(text: string): RepeatRule | null {
  if (text.length > MAX_RULE_LENGTH || !PRINTABLE_ASCII.test(text)) return null;
  const parts = splitParts(withoutPrefix(text.toUpperCase()));
  if (parts === null) return null;

  const frequency = parseFrequency(parts.get('FREQ'));
  const interval = optional(parts.get('INTERVAL'), parsePositiveInteger, 1);
  const count = optional(parts.get('COUNT'), parsePositiveInteger, null);
  const until = optional(parts.get('UNTIL'), parseUntil, null);
  const byMonth = optional(parts.get('BYMONTH'), (value) => parseList(value, parseMonth), null);
  const byMonthDay = optional(parts.get('BYMONTHDAY'), (value) => parseList(value, parseMonthDay), null);
  const byDay = optional(parts.get('BYDAY'), (value) => parseList(value, parseWeekdaySelector), null);
  const weekStart = optional(parts.get('WKST'), parseWeekday, 0);
  if (
    frequency === undefined ||
    interval === undefined ||
    count === undefined ||
    until === undefined ||
    byMonth === undefined ||
    byMonthDay === undefined ||
    byDay === undefined ||
    weekStart === undefined
  ) {
    return null;
  }
  // RFC 5545 3.3.10: UNTIL and COUNT MUST NOT occur together; BYMONTHDAY MUST NOT be used with
  // WEEKLY; a BYDAY ordinal only with MONTHLY or YEARLY.
  if (count !== null && until !== null) return null;
  if (frequency === 'WEEKLY' && byMonthDay !== null) return null;
  const ordinalsAllowed = frequency === 'MONTHLY' || frequency === 'YEARLY';
  if (!ordinalsAllowed && byDay?.some((selector) => selector.ordinal !== null)) return null;
  // An ordinal no month has (6MO) would make a rule that never occurs; no RFC 5545 meaning is lost.
  const beyondAnyMonth = (selector: WeekdaySelector): boolean => Math.abs(selector.ordinal ?? 0) > MAX_ORDINAL_IN_MONTH;
  if (ordinalsCountInMonth(frequency, byMonth) && byDay?.some(beyondAnyMonth)) return null;
  return { frequency, interval, count, until, byDay, byMonthDay, byMonth, weekStart };
}

/** Whether a BYDAY ordinal counts within the month (MONTHLY, or YEARLY with BYMONTH) rather than the year. */
export function ordinalsCountInMonth(frequency: Frequency, byMonth: readonly number[] | null): boolean {
  return frequency === 'MONTHLY' || (frequency === 'YEARLY' && byMonth !== null);
}

/**
 * The same rule text with its COUNT part set to `count`, every other character kept as given.
 * Only meaningful for a text that `parseRepeatRule` accepted with a COUNT part.
 */
export function withCount(text: string, count: number): string {
  const prefixLength = text.toUpperCase().startsWith(PREFIX) ? PREFIX.length : 0;
  const parts = text
    .slice(prefixLength)
    .split(';')
    .map((part) => {
      const name = part.slice(0, part.indexOf('='));
      return name.toUpperCase() === 'COUNT' ? `${name}=${count}` : part;
    });
  return text.slice(0, prefixLength) + parts.join(';');
}

function withoutPrefix(upperText: string): string {
  return upperText.startsWith(PREFIX) ? upperText.slice(PREFIX.length) : upperText;
}

/** The parts by name; null on an empty part, a part without `=`, an unknown or a repeated name. */
function splitParts(body: string): Map<string, string> | null {
  const parts = new Map<string, string>();
  for (const part of body.split(';')) {
    const equals = part.indexOf('=');
    if (equals <= 0) return null;
    const name = part.slice(0, equals);
    if (!PART_NAMES.has(name) || parts.has(name)) return null;
    parts.set(name, part.slice(equals + 1));
  }
  return parts;
}

/**
 * A part's parsed value: `absent` when the rule does not give the part, undefined when the
 * value is bad, so one undefined check covers every part.
 */
function optional<T, D>(
  value: string | undefined,
  parse: (value: string) => T | undefined,
  absent: D,
): T | D | undefined {
  return value === undefined ? absent : parse(value);
}

function parseFrequency(value: string | undefined): Frequency | undefined {
  return FREQUENCIES.find((frequency) => frequency === value);
}

function parsePositiveInteger(value: string): number | undefined {
  if (!POSITIVE_INTEGER.test(value)) return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) && number >= 1 ? number : undefined;
}

/** A comma-separated, non-empty list whose items all parse. */
function parseList<T>(value: string, parseItem: (item: string) => T | undefined): T[] | undefined {
  const items: T[] = [];
  for (const text of value.split(',')) {
    const item = parseItem(text);
    if (item === undefined) return undefined;
    items.push(item);
  }
  return items;
}

function parseMonth(value: string): number | undefined {
  const month = /^[0-9]{1,2}$/.test(value) ? Number(value) : 0;
  return month >= 1 && month <= 12 ? month : undefined;
}

function parseMonthDay(value: string): number | undefined {
  const match = /^([+-]?)([0-9]{1,2})$/.exec(value);
  if (match === null) return undefined;
  const magnitude = Number(match[2]);
  if (magnitude < 1 || magnitude > MAX_MONTH_DAY) return undefined;
  return match[1] === '-' ? -magnitude : magnitude;
}

function parseWeekday(value: string): number | undefined {
  const index = WEEKDAY_NAMES.findIndex((name) => name === value);
  return index < 0 ? undefined : index;
}

/** `MO`, `1MO`, `+2TU`, `-1FR`: RFC 5545 `weekdaynum`, the ordinal 1..53 in magnitude. */
function parseWeekdaySelector(value: string): WeekdaySelector | undefined {
  const match = /^(?:([+-]?)([0-9]{1,2}))?([A-Z]{2})$/.exec(value);
  if (match === null) return undefined;
  const [, sign, digits, name] = match;
  const weekday = name === undefined ? undefined : parseWeekday(name);
  if (weekday === undefined) return undefined;
  if (digits === undefined) return { weekday, ordinal: null };
  const magnitude = Number(digits);
  if (magnitude < 1 || magnitude > MAX_ORDINAL_IN_YEAR) return undefined;
  return { weekday, ordinal: sign === '-' ? -magnitude : magnitude };
}

/** `YYYYMMDD`, `YYYYMMDDTHHMMSS` (local) or `YYYYMMDDTHHMMSSZ` (UTC); impossible dates and times rejected. */
function parseUntil(value: string): RepeatUntil | undefined {
  const match = /^([0-9]{4})([0-9]{2})([0-9]{2})(?:T([0-9]{2})([0-9]{2})([0-9]{2})(Z?))?$/.exec(value);
  if (match === null) return undefined;
  // Every group up to the day matched digits; the time groups only when the `T` part is there.
  const number = (group: number): number => Number(match[group]);
  const [year, month, day] = [number(1), number(2), number(3)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (match[4] === undefined) return { kind: 'date', year, month, day };

  const [hour, minute, second] = [number(4), number(5), number(6)];
  // Seconds stop at 59: the service's clocks, like the wire format, have no leap second.
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const wallClock: WallClock = { year, month, day, hour, minute, second };
  return match[7] === 'Z' ? { kind: 'utc', at: instantAtOffset(wallClock, 0) } : { kind: 'local', wallClock };
}
