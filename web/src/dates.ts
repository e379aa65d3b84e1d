/**
 * The calendar arithmetic the app needs in the account's zone, on instants (epoch
 * milliseconds). Reading the wall clock in a zone and wire dates are the SDK's.
 */
import { calendarDateIn, wallClockIn } from '../../src/client/index.js';

/** The zone's offset from UTC at an instant, in minutes. */
function offsetMinutes(instant: number, zone: string): number {
  const wall = wallClockIn(new Date(instant), zone);
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return Math.round((asUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

/** The instant a wall-clock time happens in a zone (the earlier one in a DST overlap). */
export function instantOf(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  zone: string,
): number {
  const guess = Date.UTC(year, month - 1, day, hour, minute);
  const first = guess - offsetMinutes(guess, zone) * 60_000;
  return guess - offsetMinutes(first, zone) * 60_000;
}

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

/** `YYYY-MM-DD` of an instant in a zone. */
export function dayOf(instant: number, zone: string): string {
  return calendarDateIn(new Date(instant), zone);
}

/** `HH:MM` of an instant in a zone. */
export function timeOf(instant: number, zone: string): string {
  const wall = wallClockIn(new Date(instant), zone);
  return `${pad(wall.hour)}:${pad(wall.minute)}`;
}

/** Midnight starting the day `YYYY-MM-DD` in a zone. */
export function startOfDay(day: string, zone: string): number {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  return instantOf(year, month, date, 0, 0, zone);
}

/** The calendar day `days` after `day` (both `YYYY-MM-DD`). */
export function addDays(day: string, days: number): string {
  const [year = 0, month = 1, date = 1] = day.split('-').map(Number);
  const moved = new Date(Date.UTC(year, month - 1, date + days));
  return `${pad(moved.getUTCFullYear(), 4)}-${pad(moved.getUTCMonth() + 1)}-${pad(moved.getUTCDate())}`;
}

/** "today", "tomorrow", "yesterday" or the date, with the time unless the task is all-day. */
export function describeInstant(instant: number, allDay: boolean, zone: string, today: string): string {
  const day = dayOf(instant, zone);
  const name =
    day === today ? 'today' : day === addDays(today, 1) ? 'tomorrow' : day === addDays(today, -1) ? 'yesterday' : day;
  return allDay ? name : `${name} ${timeOf(instant, zone)}`;
}
