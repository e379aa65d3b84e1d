/**
 * IANA time-zone arithmetic on top of Intl, with no dependencies.
 *
 * Offsets are whole minutes everywhere in this module. Every wire format carries whole-minute
 * offsets, so the few historical local-mean-time offsets with seconds (Asia/Kolkata before 1854
 * was +05:53:28) are rounded to the nearest minute; that keeps `wallClockOf` and
 * `instantOfWallClock` exact inverses of each other and of the printed `+hhmm`.
 *
 * Functions taking a zone throw a RangeError for a name `isValidTimeZone` rejects.
 */
import { MICROS_PER_MS, MICROS_PER_SECOND, type Micros } from './time.js';

/** A date and time of day, to the second, as a clock on the wall shows it. */
export interface WallClock {
  /** Proleptic Gregorian year: 1 is 1 CE. */
  readonly year: number;
  /** 1-12. */
  readonly month: number;
  /** 1-31. */
  readonly day: number;
  /** 0-23. */
  readonly hour: number;
  /** 0-59. */
  readonly minute: number;
  /** 0-59. */
  readonly second: number;
}

const SECONDS_PER_DAY = 86_400;
const MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
const MILLIS_PER_SECOND = 1000;

/** Offsets are cached per 15 minutes of UTC: every transition in use today falls on such a boundary. */
const BUCKET_MILLIS = 15 * 60 * MILLIS_PER_SECOND;
/** Distinct quarter hours remembered per zone: the dates of a few thousand tasks, in bounded memory. */
const BUCKETS_PER_ZONE = 4096;
/** Wider than any offset (±14 h) and any single offset change (24 h, Pacific/Apia in 2011). */
const PROBE_MICROS = 2 * SECONDS_PER_DAY * MICROS_PER_SECOND;

/** A bucket whose offset changes inside it (historical local-mean-time changes do not align). */
interface BucketWithChange {
  readonly before: number;
  readonly after: number;
  /** The first millisecond with the `after` offset. */
  readonly changeMillis: number;
}

interface ZoneState {
  /** Formats an instant's offset as `…, GMT+05:30`; format() is about 1 µs, formatToParts 2 µs. */
  readonly offsetFormat: Intl.DateTimeFormat;
  /** Offset in minutes per bucket number, or the change inside it; oldest entries leave first. */
  readonly buckets: Map<number, number | BucketWithChange>;
}

/**
 * Only names found valid are kept: a few hundred in practice. The bound is for case variants of
 * link names (`Asia/KOLKATA`), which pass the shape check, so clients cannot grow it without end.
 */
const zones = new Map<string, ZoneState>();
const ZONES_KEPT = 1024;

/** IANA names are mixed case with a capital at the start of every segment (`America/Port-au-Prince`). */
const NAME_SHAPE = /^[A-Z][^/]*(?:\/[A-Z][^/]*)*$/;

/**
 * Whether Intl knows the zone under exactly this spelling. Intl itself matches names ignoring
 * case, but the service treats them as case-sensitive: `asia/shanghai` is not a zone. Node 20's
 * Intl answers a link (`Asia/Kolkata`, `Etc/UTC`) with its target's name (`Asia/Calcutta`, `UTC`)
 * and lists no link spellings, so a link is checked only by the shape of IANA names: a capital
 * at the start of every segment. That also keeps out offsets like `+08:00`, which newer Intl
 * versions accept as zones.
 */
export function isValidTimeZone(zone: string): boolean {
  const state = zoneState(zone);
  if (state === undefined) return false;
  return state.offsetFormat.resolvedOptions().timeZone === zone || isConventionalLinkSpelling(zone);
}

/** The words of IANA names (`America/Port-au-Prince`: `America`, `Port`, `au`, `Prince`). */
function wordsOf(zone: string): string[] {
  return zone.split(/[/_-]/);
}

/**
 * A word of an IANA name as the database writes words: capitalised (`Kolkata`, `ComodRivadavia`),
 * a short lower-case joining word (`au`, `es`), or an abbreviation (`US`, `GB`, `EST5EDT`, `GMT+5`).
 */
const CONVENTIONAL_WORD = /^(?:(?:[A-Z][a-z]+)+|[a-z]{1,3}|[A-Z]{1,4}(?:[0-9]+[A-Z]{0,3})?|[A-Z]{0,3}[+-]?[0-9]{1,2})$/;

/**
 * Link names in common use whose words Node 20's Intl lists under no name of its own (it names
 * these zones by their older spellings: `Asia/Calcutta`, `Asia/Saigon`).
 */
const COMMON_LINKS = [
  'Etc/UTC',
  'Asia/Kolkata',
  'Asia/Ho_Chi_Minh',
  'Europe/Kyiv',
  'Asia/Kathmandu',
  'Asia/Yangon',
  'America/Nuuk',
];

/** Each word of Intl's own zone names (and COMMON_LINKS), by its lower case, as those names spell it. */
let knownWordSpellings: Map<string, Set<string>> | undefined;

function spellingsOf(lowerCaseWord: string): Set<string> | undefined {
  if (knownWordSpellings === undefined) {
    knownWordSpellings = new Map();
    for (const name of [...Intl.supportedValuesOf('timeZone'), ...COMMON_LINKS]) {
      for (const word of wordsOf(name)) {
        const spellings = knownWordSpellings.get(word.toLowerCase()) ?? new Set<string>();
        spellings.add(word);
        knownWordSpellings.set(word.toLowerCase(), spellings);
      }
    }
  }
  return knownWordSpellings.get(lowerCaseWord);
}

/**
 * Whether a link name (one Intl answers with another zone's name, so that its own spelling
 * cannot be checked against Intl's) is written the way the IANA database writes names. Intl takes
 * `Asia/KOLKATA` for `Asia/Kolkata`: stored as sent, such variants would make one zone many
 * spellings. A word that Intl's own names use (`Etc`, `UTC`) must be spelled as they spell it;
 * any other word, conventionally. So only the canonical spelling of a name is ever stored.
 */
function isConventionalLinkSpelling(zone: string): boolean {
  return wordsOf(zone).every((word) => {
    const known = spellingsOf(word.toLowerCase());
    return known === undefined ? CONVENTIONAL_WORD.test(word) : known.has(word);
  });
}

function zoneState(zone: string): ZoneState | undefined {
  const known = zones.get(zone);
  if (known !== undefined) return known;
  if (!NAME_SHAPE.test(zone)) return undefined;
  let offsetFormat: Intl.DateTimeFormat;
  try {
    offsetFormat = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  } catch {
    return undefined;
  }
  // Intl matches names ignoring case and answers with its own spelling of the same name.
  const resolved = offsetFormat.resolvedOptions().timeZone;
  if (resolved !== zone && resolved.toLowerCase() === zone.toLowerCase()) return undefined;
  const state: ZoneState = { offsetFormat, buckets: new Map() };
  rememberBounded(zones, zone, state, ZONES_KEPT);
  return state;
}

/** Adds the entry, first dropping the oldest one when the map is full (insertion order). */
function rememberBounded<K, V>(map: Map<K, V>, key: K, value: V, limit: number): void {
  if (map.size >= limit) {
    const oldest = map.keys().next();
    if (oldest.done !== true) map.delete(oldest.value);
  }
  map.set(key, value);
}

function knownZone(zone: string): ZoneState {
  const state = zoneState(zone);
  if (state === undefined) throw new RangeError(`unknown time zone: ${zone}`);
  return state;
}

/** The zone's UTC offset in whole minutes at the instant (east of Greenwich positive), DST included. */
export function offsetMinutesAt(us: Micros, zone: string): number {
  // The default zone of every account: no lookup needed.
  if (zone === 'UTC') return 0;
  const state = knownZone(zone);
  const millis = floorDivide(us, MICROS_PER_MS);
  const bucket = Math.floor(millis / BUCKET_MILLIS);
  let entry = state.buckets.get(bucket);
  if (entry === undefined) {
    entry = measureBucket(state.offsetFormat, bucket);
    rememberBounded(state.buckets, bucket, entry, BUCKETS_PER_ZONE);
  }
  if (typeof entry === 'number') return entry;
  return millis < entry.changeMillis ? entry.before : entry.after;
}

/**
 * The offset over one bucket. When its first and last millisecond differ, the change is found by
 * halving over whole seconds (tz data changes offsets on whole seconds). A bucket is assumed to
 * hold at most one change: real zones never change twice within 15 minutes.
 */
function measureBucket(offsetFormat: Intl.DateTimeFormat, bucket: number): number | BucketWithChange {
  const startMillis = bucket * BUCKET_MILLIS;
  const before = measuredOffset(offsetFormat, startMillis);
  const after = measuredOffset(offsetFormat, startMillis + BUCKET_MILLIS - 1);
  if (before === after) return before;
  let lastSecondBefore = 0;
  let firstSecondAfter = BUCKET_MILLIS / MILLIS_PER_SECOND - 1;
  while (firstSecondAfter - lastSecondBefore > 1) {
    const middle = Math.floor((lastSecondBefore + firstSecondAfter) / 2);
    if (measuredOffset(offsetFormat, startMillis + middle * MILLIS_PER_SECOND) === before) lastSecondBefore = middle;
    else firstSecondAfter = middle;
  }
  return { before, after, changeMillis: startMillis + firstSecondAfter * MILLIS_PER_SECOND };
}

const CODE_ZERO = 48;
const CODE_MINUS = 45;
const CODE_UNICODE_MINUS = 0x2212;

/** Reads the offset from Intl's `…, GMT+05:53:28` (or a bare `GMT` for zero), rounded to minutes. */
function measuredOffset(offsetFormat: Intl.DateTimeFormat, millis: number): number {
  const text = offsetFormat.format(millis);
  const gmt = text.lastIndexOf('GMT');
  if (gmt < 0) throw new Error(`unexpected offset format from Intl: ${text}`);
  const sign = gmt + 3;
  if (sign >= text.length) return 0;
  const twoDigits = (at: number): number =>
    at + 1 < text.length ? (text.charCodeAt(at) - CODE_ZERO) * 10 + text.charCodeAt(at + 1) - CODE_ZERO : 0;
  const signCode = text.charCodeAt(sign);
  const direction = signCode === CODE_MINUS || signCode === CODE_UNICODE_MINUS ? -1 : 1;
  const seconds = twoDigits(sign + 1) * 3600 + twoDigits(sign + 4) * 60 + twoDigits(sign + 7);
  return direction * Math.round(seconds / 60);
}

/**
 * `Math.floor(dividend / divisor)` for instants too: past 2^53 µs (after 2255) a product such as
 * `seconds * 1e6` is rounded, and its quotient may come out a hair below `seconds`. The result is
 * the largest quotient whose product (computed the same way) does not exceed the dividend.
 */
function floorDivide(dividend: number, divisor: number): number {
  const quotient = Math.floor(dividend / divisor);
  return (quotient + 1) * divisor <= dividend ? quotient + 1 : quotient;
}

/** The local date and time at the instant in the zone, the fraction of a second dropped. */
export function wallClockOf(us: Micros, zone: string): WallClock {
  return wallClockAtOffset(us, offsetMinutesAt(us, zone));
}

/** The local date and time at the instant on a clock running `offsetMinutes` ahead of UTC. */
export function wallClockAtOffset(us: Micros, offsetMinutes: number): WallClock {
  const localSeconds = floorDivide(us, MICROS_PER_SECOND) + offsetMinutes * 60;
  const days = Math.floor(localSeconds / SECONDS_PER_DAY);
  const secondOfDay = localSeconds - days * SECONDS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(secondOfDay / 3600),
    minute: Math.floor(secondOfDay / 60) % 60,
    second: secondOfDay % 60,
  };
}

/** The instant at which a clock running `offsetMinutes` ahead of UTC shows the fields. */
export function instantAtOffset(clock: WallClock, offsetMinutes: number): Micros {
  const seconds =
    daysFromCivil(clock.year, clock.month, clock.day) * SECONDS_PER_DAY +
    clock.hour * 3600 +
    clock.minute * 60 +
    clock.second;
  return seconds * MICROS_PER_SECOND - offsetMinutes * MICROS_PER_MINUTE;
}

/**
 * The instant at which the zone's clocks show the fields. A time skipped by a forward change
 * (02:30 on a spring-forward night) moves forward by the length of the gap (03:30); a time that
 * occurs twice (the hour repeated in autumn) means its first occurrence.
 */
export function instantOfWallClock(clock: WallClock, zone: string): Micros {
  const asIfUtc = instantAtOffset(clock, 0);
  const offsetBefore = offsetMinutesAt(asIfUtc - PROBE_MICROS, zone);
  const offsetAfter = offsetMinutesAt(asIfUtc + PROBE_MICROS, zone);
  const underBefore = asIfUtc - offsetBefore * MICROS_PER_MINUTE;
  const underAfter = asIfUtc - offsetAfter * MICROS_PER_MINUTE;
  const validBefore = offsetMinutesAt(underBefore, zone) === offsetBefore;
  const validAfter = offsetMinutesAt(underAfter, zone) === offsetAfter;
  if (validBefore && validAfter) return Math.min(underBefore, underAfter);
  if (validAfter) return underAfter;
  // Valid under the earlier offset only, or in a gap: read under the earlier offset, a gap's
  // time then lands as far past the change as it was past the last time before it.
  return underBefore;
}

/** The first instant of the local date on which the instant falls (midnight, or later when skipped). */
export function startOfDay(us: Micros, zone: string): Micros {
  const { year, month, day } = wallClockOf(us, zone);
  return instantOfWallClock({ year, month, day, hour: 0, minute: 0, second: 0 }, zone);
}

/** Days in the month of the proleptic Gregorian calendar (month 1-12). */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/*
 * Calendar dates as day numbers from 1970-01-01, computed on a year that starts on 1 March, so
 * the leap day is the last day of its year, and in 400-year cycles of 146097 days, so negative
 * years need no special case. Faster than Date and, unlike Date.UTC, right for years 0-99.
 */
const DAYS_PER_CYCLE = 146_097;
/** Day number of 0000-03-01, the start of a cycle, counted from 1970-01-01. */
const CYCLE_ZERO_DAY = -719_468;

function daysFromCivil(year: number, month: number, day: number): number {
  const marchYear = month <= 2 ? year - 1 : year;
  const cycle = Math.floor(marchYear / 400);
  const yearOfCycle = marchYear - cycle * 400;
  const monthFromMarch = month > 2 ? month - 3 : month + 9;
  // 153 days per 5 months from March: 31 30 31 30 31, a pattern that repeats until February.
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfCycle = yearOfCycle * 365 + Math.floor(yearOfCycle / 4) - Math.floor(yearOfCycle / 100) + dayOfYear;
  return cycle * DAYS_PER_CYCLE + dayOfCycle + CYCLE_ZERO_DAY;
}

function civilFromDays(days: number): { year: number; month: number; day: number } {
  const sinceCycleZero = days - CYCLE_ZERO_DAY;
  const cycle = Math.floor(sinceCycleZero / DAYS_PER_CYCLE);
  const dayOfCycle = sinceCycleZero - cycle * DAYS_PER_CYCLE;
  // Leap days fall every 1461 days, except at 36524 and at the cycle's last day (146096).
  const yearOfCycle = Math.floor(
    (dayOfCycle - Math.floor(dayOfCycle / 1460) + Math.floor(dayOfCycle / 36_524) - Math.floor(dayOfCycle / 146_096)) /
      365,
  );
  const dayOfYear = dayOfCycle - (yearOfCycle * 365 + Math.floor(yearOfCycle / 4) - Math.floor(yearOfCycle / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfCycle + cycle * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}
