/**
 * Quick add (WEB.md section 1): a line of text with tokens, each a word starting with its
 * character: `#Project`, `@context`, `*tag`, `!1`..`!3` (priority), `^today`, `^tomorrow`,
 * `^YYYY-MM-DD`, `^mon`..`^sun` (start date: Scheduled), `^someday` (Someday), `~next` /
 * `~waiting` (box). Text in double quotes is never a token. The title is the text without its
 * tokens, otherwise unchanged. The one parser of the web app and the terminal client.
 */
import type { TaskWrite } from './records.js';

export type QuickAddToken =
  | { readonly kind: 'project'; readonly raw: string; readonly name: string }
  | { readonly kind: 'context'; readonly raw: string; readonly name: string }
  | { readonly kind: 'tag'; readonly raw: string; readonly name: string }
  | { readonly kind: 'priority'; readonly raw: string; readonly priority: 1 | 2 | 3 }
  /** `date`: `YYYY-MM-DD`; or a day relative to today, resolved by quickAddTask. */
  | {
      readonly kind: 'start';
      readonly raw: string;
      readonly day: 'today' | 'tomorrow' | Weekday | { readonly date: string };
    }
  | { readonly kind: 'box'; readonly raw: string; readonly box: 'noplan' | 'next' | 'waiting' };

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

/** The token a word is, or undefined when it is title text. */
function tokenOf(word: string): QuickAddToken | undefined {
  if (word.includes('"')) return undefined;
  const rest = word.slice(1);
  switch (word[0]) {
    case '#':
      return rest === '' ? undefined : { kind: 'project', raw: word, name: rest };
    case '@':
      return rest === '' ? undefined : { kind: 'context', raw: word, name: rest };
    case '*':
      return rest === '' ? undefined : { kind: 'tag', raw: word, name: rest };
    case '!':
      if (rest === '1') return { kind: 'priority', raw: word, priority: 1 };
      if (rest === '2') return { kind: 'priority', raw: word, priority: 2 };
      return rest === '3' ? { kind: 'priority', raw: word, priority: 3 } : undefined;
    case '^': {
      const day = rest.toLowerCase();
      if (day === 'someday') return { kind: 'box', raw: word, box: 'noplan' };
      if (day === 'today' || day === 'tomorrow' || isWeekday(day)) return { kind: 'start', raw: word, day };
      return isCalendarDate(rest) ? { kind: 'start', raw: word, day: { date: rest } } : undefined;
    }
    case '~': {
      const box = rest.toLowerCase();
      return box === 'next' || box === 'waiting' ? { kind: 'box', raw: word, box } : undefined;
    }
    default:
      return undefined;
  }
}

/** The words of the text with the space before each; a double-quoted stretch is part of one word. */
function wordsOf(text: string): { space: string; word: string }[] {
  const words: { space: string; word: string }[] = [];
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
    if (index > wordStart) words.push({ space, word: text.slice(wordStart, index) });
  }
  return words;
}

export function parseQuickAdd(text: string): QuickAdd {
  const tokens: QuickAddToken[] = [];
  let title = '';
  for (const { space, word } of wordsOf(text)) {
    const token = tokenOf(word);
    if (token !== undefined) tokens.push(token);
    else title += (title === '' ? '' : space) + word;
  }
  return { title, tokens };
}

function addDays(date: string, days: number): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() + days);
  return day.toISOString().slice(0, 10);
}

/** The start date a token names, `today` being the account's date now (`YYYY-MM-DD`). */
function startDateOf(day: Extract<QuickAddToken, { kind: 'start' }>['day'], today: string): string {
  if (typeof day === 'object') return day.date;
  if (day === 'today') return today;
  if (day === 'tomorrow') return addDays(today, 1);
  // The next such weekday after today: `^mon` on a Monday is next week's.
  const todayIndex = new Date(`${today}T00:00:00Z`).getUTCDay();
  const ahead = (WEEKDAYS.indexOf(day) - todayIndex + 7) % 7 || 7;
  return addDays(today, ahead);
}

/**
 * The task a quick add makes. `today` is the account's date now (`YYYY-MM-DD`); `box` the view's
 * box it is added in, unless a token says otherwise. Later tokens of a kind win, tags add up.
 */
export function quickAddTask(
  parsed: QuickAdd,
  today: string,
  box?: 'inbox' | 'next' | 'noplan' | 'waiting',
): TaskWrite {
  const task: TaskWrite = { title: parsed.title };
  const tags: string[] = [];
  if (box !== undefined) task.attribute = box;
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
        task.start_at = startDateOf(token.day, today);
        task.all_day = true;
        task.attribute = 'plan';
        break;
      case 'box':
        task.attribute = token.box;
        break;
    }
  }
  if (tags.length > 0) task.tags = tags;
  return task;
}
