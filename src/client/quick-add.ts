/**
 * Quick add (WEB.md section 1): a line of text with tokens, each a word starting with its
 * character: `#Project`, `@context` (the context keeps its `@`, as the contract's `@home`),
 * `*tag`, `!1`..`!3` (priority), `^today`, `^tomorrow`, `^YYYY-MM-DD`, `^mon`..`^sun` (start
 * date: Scheduled), `^someday` (Someday), `~next` / `~waiting` (box). Text in double quotes is
 * never a token. The title is the text without its tokens, otherwise unchanged. The one parser of
 * the web app and the terminal client.
 */
import type { TaskWrite } from './records.js';

/** What a token means, without where it was written. */
type TokenMeaning =
  | { readonly kind: 'project'; readonly name: string }
  | { readonly kind: 'context'; readonly name: string }
  | { readonly kind: 'tag'; readonly name: string }
  | { readonly kind: 'priority'; readonly priority: 1 | 2 | 3 }
  /** `date`: `YYYY-MM-DD`; or a day relative to today, resolved by quickAddStartDate. */
  | { readonly kind: 'start'; readonly day: StartDay }
  | { readonly kind: 'box'; readonly box: 'noplan' | 'next' | 'waiting' };

/** A token as written: `raw` its text, `at` where it starts in the text (for removing a chip). */
export type QuickAddToken = TokenMeaning & { readonly raw: string; readonly at: number };

export type StartDay = 'today' | 'tomorrow' | Weekday | { readonly date: string };

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
  for (const { space, word, at } of wordsOf(text)) {
    const meaning = meaningOf(word);
    if (meaning !== undefined) tokens.push({ ...meaning, raw: word, at });
    else title += (title === '' ? '' : space) + word;
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
  if (typeof day === 'object') return day.date;
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
 */
export function quickAddTask(parsed: QuickAdd, today: string, place: QuickAddPlace = {}): TaskWrite {
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
      case 'start':
        task.start_at = quickAddStartDate(token.day, today);
        task.all_day = true;
        task.attribute = 'plan';
        break;
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
