/**
 * Date-times of the contract: the service writes `YYYY-MM-DD HH:MM:SS +hhmm` in the account's
 * zone, and reads that form (any offset), a date alone, or RFC 3339. Built on Intl only, so it
 * runs in browsers as in Node.
 */
const WIRE_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;

/** `YYYY-MM-DD`: a calendar date, which the service reads as 00:00:00 in the account's zone. */
export const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The instant a date-time of the service names; throws on anything else. */
export function parseWireDate(text: string): Date {
  const match = WIRE_DATE_TIME.exec(text);
  if (match === null) throw new RangeError(`not a date-time of the service: ${text}`);
  const [year, month, day, hour, minute, second, sign, offsetHours, offsetMinutes] = match.slice(1);
  const offset = (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes));
  const wallClock = utcOfWallClock({
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour),
    minute: Number(minute),
    second: Number(second),
  });
  return new Date(wallClock - offset * 60_000);
}

/**
 * The wall clock read as if in UTC, in milliseconds. Set field by field: Date.UTC would take
 * years 0-99 as 1900-1999.
 */
function utcOfWallClock(clock: WallClock): number {
  const date = new Date(0);
  date.setUTCFullYear(clock.year, clock.month - 1, clock.day);
  date.setUTCHours(clock.hour, clock.minute, clock.second, 0);
  return date.getTime();
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

interface WallClock {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hour: number;
  readonly minute: number;
  readonly second: number;
}

/** The wall clock in `zone` at `date` (whole seconds). */
export function wallClockIn(date: Date, zone: string): WallClock {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(date)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts['year'] ?? 0,
    month: parts['month'] ?? 1,
    day: parts['day'] ?? 1,
    hour: parts['hour'] ?? 0,
    minute: parts['minute'] ?? 0,
    second: parts['second'] ?? 0,
  };
}

function pad(value: number, digits = 2): string {
  return String(value).padStart(digits, '0');
}

/**
 * The instant a calendar date `YYYY-MM-DD` begins in `zone`: its 00:00:00 there, found from the
 * zone's offset at a first guess and corrected once for an offset that changed in between.
 */
export function startOfDayIn(calendarDate: string, zone: string): Date {
  return instantIn(calendarDate, '00:00', zone);
}

/** The instant the wall clock in `zone` shows `HH:MM` on a calendar date `YYYY-MM-DD`, found as startOfDayIn finds midnight. */
export function instantIn(calendarDate: string, time: string, zone: string): Date {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(calendarDate);
  if (match === null) throw new Error(`not a calendar date: ${calendarDate}`);
  const clock = /^(\d{2}):(\d{2})$/.exec(time);
  if (clock === null) throw new Error(`not a time: ${time}`);
  const wall = utcOfWallClock({
    year: Number(match[1]),
    month: Number(match[2]),
    day: Number(match[3]),
    hour: Number(clock[1]),
    minute: Number(clock[2]),
    second: 0,
  });
  let instant = wall;
  for (let pass = 0; pass < 2; pass += 1) {
    instant = wall - (utcOfWallClock(wallClockIn(new Date(instant), zone)) - instant);
  }
  return new Date(instant);
}

/** `YYYY-MM-DD` of the wall clock in `zone` at `date`. */
export function calendarDateIn(date: Date, zone: string): string {
  const clock = wallClockIn(date, zone);
  return `${pad(clock.year, 4)}-${pad(clock.month)}-${pad(clock.day)}`;
}

/** `2026-03-29 03:30:00 +0200`: the instant as the wall clock in `zone`, with that zone's offset then. */
export function formatWireDate(date: Date, zone = 'UTC'): string {
  const seconds = Math.floor(date.getTime() / 1000) * 1000;
  const clock = wallClockIn(new Date(seconds), zone);
  const offset = Math.round((utcOfWallClock(clock) - seconds) / 60_000);
  const magnitude = Math.abs(offset);
  return (
    `${pad(clock.year, 4)}-${pad(clock.month)}-${pad(clock.day)} ${pad(clock.hour)}:${pad(clock.minute)}:${pad(clock.second)} ` +
    `${offset < 0 ? '-' : '+'}${pad(Math.floor(magnitude / 60))}${pad(magnitude % 60)}`
  );
}
