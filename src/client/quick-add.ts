/**
 * Quick add (WEB.md section 1): a line of text with tokens, each a word starting with its
 * character: `#Project`, `@context` (the context keeps its `@`, as the contract's `@home`),
 * `*tag`, `!1`..`!3` (priority), `^today`, `^tomorrow`, `^YYYY-MM-DD`, `^mon`..`^sun`,
 * `^next week` (7 days on), `^in 3 days` / `^in 2 weeks` (start date: Scheduled), each maybe
 * followed by a time (`^tomorrow 18:30`, `^fri 9am`), or a time alone (`^9am`: today), `^someday`
 * (Someday), `~next` / `~waiting` (box). Text in double quotes is never a token. The title is the text without its tokens, otherwise unchanged. The one parser of
 * the web app and the terminal client.
 */
import { formatWireDate, instantIn } from './dates.js';
import type { TaskWrite } from './records.js';

/** What a token means, without where it was written. */
type TokenMeaning =
  | { readonly kind: 'project'; readonly name: string }
  | { readonly kind: 'context'; readonly name: string }
  | { readonly kind: 'tag'; readonly name: string }
  | { readonly kind: 'priority'; readonly priority: 1 | 2 | 3 }
  /**
   * `date`: `YYYY-MM-DD`; or a day relative to today, resolved by quickAddStartDate; `time`
   * (`HH:MM`, 24 h) when one was written, else the task is all-day.
   */
  | { readonly kind: 'start'; readonly day: StartDay; readonly time?: string }
  | { readonly kind: 'box'; readonly box: 'noplan' | 'next' | 'waiting' };

/** A token as written: `raw` its text, `at` where it starts in the text (for removing a chip). */
export type QuickAddToken = TokenMeaning & { readonly raw: string; readonly at: number };

export type StartDay =
  | 'today'
  | 'tomorrow'
  | Weekday
  | { readonly date: string }
  /** `^next week`, `^in 3 days`: that many days after today. */
  | { readonly inDays: number };

export interface QuickAdd {
  readonly title: string;
  /** In the order written; each may be removed (a chip) before the task is made. */
  readonly tokens: readonly QuickAddToken[];
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
type Weekday = (typeof WEEKDAYS)[number];

function isWeekday(text: string): text is Weekday {
  return (WEEKDAYS as readonly string[]).includes(text);
}

/** A real calendar date `YYYY-MM-DD` (no 2026-02-30). */
function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return false;
  const date = new Date(0);
  date.setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return date.getUTCMonth() === Number(match[2]) - 1 && date.getUTCDate() === Number(match[3]);
}

/**
 * A time of day as written after a date, `HH:MM` (24 h): `18:30`, `9am`, `9:30pm`, `12am`. A bare
 * number is not one (`^tomorrow 2 apples` keeps its 2).
 */
function timeOf(word: string): string | undefined {
  const match = /^(\d{1,2})(?::(\d{2}))?(am|pm)?$/.exec(word.toLowerCase());
  if (match === null) return undefined;
  const [, hourText = '', minuteText, half] = match;
  if (minuteText === undefined && half === undefined) return undefined;
  let hour = Number(hourText);
  const minute = Number(minuteText ?? '0');
  if (minute > 59) return undefined;
  if (half === undefined) {
    if (hour > 23) return undefined;
  } else {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (half === 'pm' ? 12 : 0);
  }
  return `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
}

/** How many days a relative phrase after `^` names, and how many words it took; undefined if none. */
function relativeDays(words: readonly Word[], index: number): { days: number; taken: number } | undefined {
  const first = words[index]?.word.toLowerCase();
  const second = words[index + 1]?.word.toLowerCase();
  if (first === '^next' && second === 'week') return { days: 7, taken: 2 };
  const unit = words[index + 2]?.word.toLowerCase();
  if (first !== '^in' || second === undefined || unit === undefined || !/^\d{1,3}$/.test(second)) return undefined;
  if (unit === 'day' || unit === 'days') return { days: Number(second), taken: 3 };
  if (unit === 'week' || unit === 'weeks') return { days: 7 * Number(second), taken: 3 };
  return undefined;
}

/** What a word means as a token, or undefined when it is title text. */
function meaningOf(word: string): TokenMeaning | undefined {
  if (word.includes('"')) return undefined;
  const rest = word.slice(1);
  switch (word[0]) {
    case '#':
      return rest === '' ? undefined : { kind: 'project', name: rest };
    case '@':
      return rest === '' ? undefined : { kind: 'context', name: word };
    case '*':
      return rest === '' ? undefined : { kind: 'tag', name: rest };
    case '!':
      if (rest === '1') return { kind: 'priority', priority: 1 };
      if (rest === '2') return { kind: 'priority', priority: 2 };
      return rest === '3' ? { kind: 'priority', priority: 3 } : undefined;
    case '^': {
      const day = rest.toLowerCase();
      if (day === 'someday') return { kind: 'box', box: 'noplan' };
      if (day === 'today' || day === 'tomorrow' || isWeekday(day)) return { kind: 'start', day };
      const time = timeOf(day);
      if (time !== undefined) return { kind: 'start', day: 'today', time };
      return isCalendarDate(rest) ? { kind: 'start', day: { date: rest } } : undefined;
    }
    case '~': {
      const box = rest.toLowerCase();
      return box === 'next' || box === 'waiting' ? { kind: 'box', box } : undefined;
    }
    default:
      return undefined;
  }
}

interface Word {
  /** The white space before it. */
  readonly space: string;
  readonly word: string;
  readonly at: number;
}

/** The words of the text with the space before each; a double-quoted stretch is part of one word. */
function wordsOf(text: string): Word[] {
  const words: Word[] = [];
  let index = 0;
  while (index < text.length) {
    const start = index;
    while (index < text.length && /\s/.test(text.charAt(index))) index += 1;
    const space = text.slice(start, index);
    const wordStart = index;
    let quoted = false;
    while (index < text.length && (quoted || !/\s/.test(text.charAt(index)))) {
      if (text.charAt(index) === '"') quoted = !quoted;
      index += 1;
    }
    if (index > wordStart) words.push({ space, word: text.slice(wordStart, index), at: wordStart });
  }
  return words;
}

export function parseQuickAdd(text: string): QuickAdd {
  const tokens: QuickAddToken[] = [];
  let title = '';
  const words = wordsOf(text);
  for (let index = 0; index < words.length; index += 1) {
    const { space, word, at } = words[index] ?? { space: '', word: '', at: 0 };
    const relative = relativeDays(words, index);
    let meaning: TokenMeaning | undefined =
      relative === undefined ? meaningOf(word) : { kind: 'start', day: { inDays: relative.days } };
    let last = index + (relative?.taken ?? 1) - 1;
    // A date may be followed by its time: `^tomorrow 18:30`, `^2026-12-24 10:00`.
    if (meaning?.kind === 'start' && meaning.time === undefined) {
      const time = timeOf(words[last + 1]?.word ?? '');
      if (time !== undefined) {
        meaning = { ...meaning, time };
        last += 1;
      }
    }
    if (meaning === undefined) {
      title += (title === '' ? '' : space) + word;
      continue;
    }
    const end = words[last] ?? words[index];
    tokens.push({ ...meaning, raw: text.slice(at, (end?.at ?? at) + (end?.word.length ?? 0)), at });
    index = last;
  }
  return { title, tokens };
}

/** The text with one token cut out, with the white space before it (or after it, at the start): a chip removed. */
export function withoutToken(text: string, token: QuickAddToken): string {
  let from = token.at;
  while (from > 0 && /\s/.test(text.charAt(from - 1))) from -= 1;
  let to = token.at + token.raw.length;
  if (from === 0) while (to < text.length && /\s/.test(text.charAt(to))) to += 1;
  return text.slice(0, from) + text.slice(to);
}

function addDays(date: string, days: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

/**
 * The start date (`YYYY-MM-DD`) a `^` token names, `today` being the account's date now. A
 * weekday is the coming such day, today included (`^tue` on a Tuesday is today).
 */
export function quickAddStartDate(day: StartDay, today: string): string {
  if (typeof day === 'object') return 'date' in day ? day.date : addDays(today, day.inDays);
  if (day === 'today') return today;
  if (day === 'tomorrow') return addDays(today, 1);
  const todayIndex = new Date(`${today}T00:00:00Z`).getUTCDay();
  return addDays(today, (WEEKDAYS.indexOf(day) - todayIndex + 7) % 7);
}

/** Where a quick add is made (the view it is typed in), unless its tokens say otherwise. */
export interface QuickAddPlace {
  readonly box?: 'inbox' | 'next' | 'plan' | 'noplan' | 'waiting';
  readonly project?: string;
  readonly context?: string;
}

/**
 * The task a quick add makes. `today` is the account's date now (`YYYY-MM-DD`); `place` the box,
 * project or context of the view it is added in, unless a token says otherwise. Later tokens of a
 * kind win, tags add up. Scheduled needs a start: a task going there without one starts today.
 * A start is a calendar date (all day), or with a time the wire's date-time in `zone` (the
 * account's).
 */
export function quickAddTask(parsed: QuickAdd, today: string, place: QuickAddPlace = {}, zone = 'UTC'): TaskWrite {
  const task: TaskWrite = { title: parsed.title };
  const tags: string[] = [];
  if (place.box !== undefined) task.attribute = place.box;
  if (place.project !== undefined) task.project = place.project;
  if (place.context !== undefined) task.context = place.context;
  for (const token of parsed.tokens) {
    switch (token.kind) {
      case 'project':
        task.project = token.name;
        break;
      case 'context':
        task.context = token.name;
        break;
      case 'tag':
        if (!tags.includes(token.name)) tags.push(token.name);
        break;
      case 'priority':
        task.priority = token.priority;
        break;
      case 'start': {
        const day = quickAddStartDate(token.day, today);
        task.start_at = token.time === undefined ? day : formatWireDate(instantIn(day, token.time, zone), zone);
        task.all_day = token.time === undefined;
        task.attribute = 'plan';
        break;
      }
      case 'box':
        task.attribute = token.box;
        break;
    }
  }
  if (tags.length > 0) task.tags = tags;
  if (task.attribute === 'plan' && task.start_at === undefined) {
    task.start_at = today;
    task.all_day = true;
  }
  return task;
}
