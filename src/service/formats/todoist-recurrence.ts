/**
 * Todoist's English recurring dates ("every monday", "every 2 weeks") as RRULEs. Each phrase
 * understood is in TODOIST_PHRASES (docs/operations.md lists them); anything else is reported
 * as not mapped by the caller, never guessed.
 */

const WEEKDAYS: Readonly<Record<string, string>> = {
  monday: 'MO',
  mon: 'MO',
  tuesday: 'TU',
  tue: 'TU',
  tues: 'TU',
  wednesday: 'WE',
  wed: 'WE',
  thursday: 'TH',
  thu: 'TH',
  thurs: 'TH',
  friday: 'FR',
  fri: 'FR',
  saturday: 'SA',
  sat: 'SA',
  sunday: 'SU',
  sun: 'SU',
};

const UNITS: Readonly<Record<string, string>> = {
  day: 'DAILY',
  days: 'DAILY',
  week: 'WEEKLY',
  weeks: 'WEEKLY',
  month: 'MONTHLY',
  months: 'MONTHLY',
  year: 'YEARLY',
  years: 'YEARLY',
};

const ALONE: Readonly<Record<string, string>> = {
  daily: 'FREQ=DAILY',
  weekly: 'FREQ=WEEKLY',
  monthly: 'FREQ=MONTHLY',
  yearly: 'FREQ=YEARLY',
  annually: 'FREQ=YEARLY',
  'every weekday': 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
  'every workday': 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR',
  'every weekend': 'FREQ=WEEKLY;BYDAY=SA,SU',
  'every other day': 'FREQ=DAILY;INTERVAL=2',
  'every other week': 'FREQ=WEEKLY;INTERVAL=2',
  'every other month': 'FREQ=MONTHLY;INTERVAL=2',
  'every other year': 'FREQ=YEARLY;INTERVAL=2',
};

/** The phrases understood, as the documentation lists them (N a whole number, days listed by commas). */
export const TODOIST_PHRASES = [
  'every day, every week, every month, every year (also daily, weekly, monthly, yearly, annually)',
  'every N days, every N weeks, every N months, every N years',
  'every other day, every other week, every other month, every other year',
  'every monday … every sunday (also mon, tue, wed, thu, fri, sat, sun), and lists: every mon, fri',
  'every weekday (every workday), every weekend',
  '"every!" (repeat after completion) is read as "every", and said so',
] as const;

export interface RecurrenceReading {
  readonly rule: string;
  /** Weekdays (RRULE two-letter codes) the first occurrence must fall on; empty: any day. */
  readonly days: readonly string[];
  /** Something of the phrase that the rule does not carry, to list as not mapped. */
  readonly caveat?: string;
}

/** The RRULE for a Todoist recurring date, or undefined when the phrase is not one understood. */
export function recurrenceOf(phrase: string): RecurrenceReading | undefined {
  const normalized = phrase.trim().toLowerCase().replace(/\s+/g, ' ');
  const afterCompletion = normalized.startsWith('every!');
  const text = afterCompletion ? `every${normalized.slice('every!'.length)}` : normalized;
  const reading = readPhrase(text);
  if (reading === undefined) return undefined;
  return afterCompletion
    ? {
        ...reading,
        caveat: `"${phrase}" repeats after completion in Todoist; here it repeats on the dates of the rule`,
      }
    : reading;
}

function readPhrase(text: string): RecurrenceReading | undefined {
  const alone = ALONE[text];
  if (alone !== undefined) {
    const days = /BYDAY=([A-Z,]+)/.exec(alone)?.[1]?.split(',') ?? [];
    return { rule: alone, days };
  }
  const every = /^every (?:(\d+) )?(day|days|week|weeks|month|months|year|years)$/.exec(text);
  if (every !== null) {
    const frequency = UNITS[every[2] ?? ''];
    if (frequency === undefined) return undefined;
    const interval = every[1] === undefined ? 1 : Number(every[1]);
    if (interval < 1) return undefined;
    return { rule: `FREQ=${frequency}${interval === 1 ? '' : `;INTERVAL=${interval}`}`, days: [] };
  }
  const list = /^every ([a-z ,]+)$/.exec(text)?.[1];
  if (list === undefined) return undefined;
  const names = list
    .split(/,| and /)
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const days = names.map((name) => WEEKDAYS[name]);
  if (days.length === 0 || days.some((day) => day === undefined)) return undefined;
  const unique = [...new Set(days.filter((day): day is string => day !== undefined))];
  return { rule: `FREQ=WEEKLY;BYDAY=${unique.join(',')}`, days: unique };
}
