/**
 * Todoist's English one-off dates ("tomorrow", "friday", "in 3 days", "Dec 3"), and the time of
 * day that may follow a date or a recurring phrase ("at 9am", "at 18:30"), read against the day
 * the file was made. Each form understood is in TODOIST_DATE_FORMS (docs/operations.md lists
 * them); anything else is reported as not mapped by the caller, never guessed.
 */

export interface Day {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

export interface TimeOfDay {
  readonly hour: number;
  readonly minute: number;
}

/** The forms understood, as the documentation lists them. */
export const TODOIST_DATE_FORMS = [
  'today (tod), tomorrow (tom), yesterday',
  'monday … sunday (also mon … sun): the next one, today included',
  'in N days, in N weeks (also in a day, in a week)',
  'a month and day: Dec 3, 3 Dec, December 3, with a year after it or not (the next one to come when not)',
  'followed by a time, `at 9am`, `at 9:30pm`, `at 18:30`, `at noon`',
] as const;

const WEEKDAYS: Readonly<Record<string, number>> = {
  sunday: 0,
  sun: 0,
  monday: 1,
  mon: 1,
  tuesday: 2,
  tue: 2,
  tues: 2,
  wednesday: 3,
  wed: 3,
  thursday: 4,
  thu: 4,
  thurs: 4,
  friday: 5,
  fri: 5,
  saturday: 6,
  sat: 6,
};

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};

function dateOf(year: number, month: number, day: number): Date {
  return new Date(Date.UTC(year, month - 1, day));
}

function dayOf(date: Date): Day {
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** `from` moved by a number of days. */
export function addDays(from: Day, days: number): Day {
  return dayOf(dateOf(from.year, from.month, from.day + days));
}

/** Whether the day exists (no 31 April, no 29 February outside leap years). */
function exists(day: Day): boolean {
  const date = dateOf(day.year, day.month, day.day);
  return date.getUTCMonth() + 1 === day.month && date.getUTCDate() === day.day;
}

/** A time of day: `at 9am`, `at 9:30 pm`, `at 18:30`, `at noon`, `at midnight` (the "at" may be left out before am/pm). */
const TIME =
  /^(.*?)\s*(?:\bat\s+(\d{1,2})(?::(\d\d))?\s*(am|pm)?|\s(\d{1,2})(?::(\d\d))?\s*(am|pm)|\bat\s+(noon|midnight))$/;

/** The phrase without a time at its end, and that time (undefined: none, or none that is a time). */
export function splitTime(phrase: string): { readonly rest: string; readonly time?: TimeOfDay } | undefined {
  const text = phrase.trim().toLowerCase().replace(/\s+/g, ' ');
  const match = TIME.exec(` ${text}`);
  if (match === null) return { rest: text };
  const rest = (match[1] ?? '').trim();
  if (match[8] !== undefined) return { rest, time: { hour: match[8] === 'noon' ? 12 : 0, minute: 0 } };
  const hourText = match[2] ?? match[5] ?? '';
  const minuteText = match[3] ?? match[6];
  const meridiem = match[4] ?? match[7];
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  if (minute > 59) return undefined;
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  } else if (hour > 23 || minuteText === undefined) {
    // "at 9" is no time this import reads (Todoist's own reading depends on the person's settings).
    return undefined;
  }
  return { rest, time: { hour, minute } };
}

/** The day a one-off date names, counted from `made` (the day the file was made); undefined: not one understood. */
export function oneOffDay(text: string, made: Day): Day | undefined {
  if (text === 'today' || text === 'tod') return made;
  if (text === 'tomorrow' || text === 'tom') return addDays(made, 1);
  if (text === 'yesterday') return addDays(made, -1);
  const weekday = WEEKDAYS[text];
  if (weekday !== undefined) {
    const todayIndex = dateOf(made.year, made.month, made.day).getUTCDay();
    return addDays(made, (weekday - todayIndex + 7) % 7);
  }
  const within = /^in (\d+|a|an) (day|days|week|weeks)$/.exec(text);
  if (within !== null) {
    const count = within[1] === 'a' || within[1] === 'an' ? 1 : Number(within[1]);
    return addDays(made, count * (within[2]?.startsWith('week') === true ? 7 : 1));
  }
  const iso = /^(\d{4})-(\d\d)-(\d\d)$/.exec(text);
  if (iso !== null) {
    const day = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    return exists(day) ? day : undefined;
  }
  return monthAndDay(text, made);
}

/** `dec 3`, `3 dec`, `december 3 2027`, `3 december, 2027`: with no year, the next one on or after `made`. */
function monthAndDay(text: string, made: Day): Day | undefined {
  const match =
    /^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?,? ?(\d{4})?$/.exec(text) ??
    /^(\d{1,2})(?:st|nd|rd|th)? ([a-z]+)\.?,? ?(\d{4})?$/.exec(text);
  if (match === null) return undefined;
  const [monthText, dayText] = /^\d/.test(match[1] ?? '') ? [match[2], match[1]] : [match[1], match[2]];
  const month = MONTHS[monthText ?? ''];
  if (month === undefined) return undefined;
  const day = Number(dayText);
  if (match[3] !== undefined) {
    const given = { year: Number(match[3]), month, day };
    return exists(given) ? given : undefined;
  }
  for (let year = made.year; year <= made.year + 4; year += 1) {
    const candidate = { year, month, day };
    if (!exists(candidate)) continue;
    if (dateOf(year, month, day) >= dateOf(made.year, made.month, made.day)) return candidate;
  }
  return undefined;
}
