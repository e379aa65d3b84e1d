/**
 * Quick add's little language (WEB.md section 1): words starting with `#`, `@`, `*`, `!`, `^` or
 * `~` that name something are tokens; text in double quotes never is. The title is the text
 * without its tokens, otherwise unchanged.
 */
import type { Box } from './api.ts';
import { addDays, isDay } from './dates.ts';

export type Chip =
  | { readonly kind: 'project'; readonly name: string }
  | { readonly kind: 'context'; readonly name: string }
  | { readonly kind: 'tag'; readonly name: string }
  | { readonly kind: 'priority'; readonly priority: number }
  | { readonly kind: 'start'; readonly day: string }
  | { readonly kind: 'box'; readonly box: Box };

/** A token found in the text, with where it is (so a chip's removal can cut it out). */
export interface FoundToken {
  readonly chip: Chip;
  readonly word: string;
  readonly from: number;
  readonly to: number;
}

export interface QuickAdd {
  readonly title: string;
  readonly tokens: readonly FoundToken[];
}

const WEEKDAY_WORDS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** The day a `^` word names, seen from `today` (`YYYY-MM-DD`, a weekday 0-6); null if none. */
function startDayOf(word: string, today: string, todayWeekday: number): string | null {
  const lower = word.toLowerCase();
  if (lower === 'today') return today;
  if (lower === 'tomorrow') return addDays(today, 1);
  const weekday = WEEKDAY_WORDS.indexOf(lower);
  // The coming such day; today's own weekday means today.
  if (weekday >= 0) return addDays(today, (weekday - todayWeekday + 7) % 7);
  return isDay(word) ? word : null;
}

function chipOf(word: string, today: string, todayWeekday: number): Chip | null {
  const rest = word.slice(1);
  if (rest === '') return null;
  switch (word[0]) {
    case '#':
      return { kind: 'project', name: rest };
    case '@':
      // Contexts keep their `@`, as in the contract's own example (`@home`).
      return { kind: 'context', name: word };
    case '*':
      return { kind: 'tag', name: rest };
    case '!':
      return /^[1-3]$/.test(rest) ? { kind: 'priority', priority: Number(rest) } : null;
    case '~':
      return rest === 'next' || rest === 'waiting' ? { kind: 'box', box: rest } : null;
    case '^': {
      if (rest.toLowerCase() === 'someday') return { kind: 'box', box: 'noplan' };
      const day = startDayOf(rest, today, todayWeekday);
      return day === null ? null : { kind: 'start', day };
    }
    default:
      return null;
  }
}

export function parseQuickAdd(text: string, today: string, todayWeekday: number): QuickAdd {
  const tokens: FoundToken[] = [];
  let inQuote = false;
  let index = 0;
  while (index < text.length) {
    if (/\s/.test(text[index] ?? '')) {
      index += 1;
      continue;
    }
    const from = index;
    const startsInQuote = inQuote || text[from] === '"';
    while (index < text.length && !/\s/.test(text[index] ?? '')) {
      if (text[index] === '"') inQuote = !inQuote;
      index += 1;
    }
    if (startsInQuote) continue;
    const word = text.slice(from, index);
    const chip = chipOf(word, today, todayWeekday);
    if (chip !== null) tokens.push({ chip, word, from, to: index });
  }
  return { title: withoutTokens(text, tokens).trim(), tokens };
}

/** The text with these tokens cut out, each with the spaces before it (or after it, at the start). */
export function withoutTokens(text: string, tokens: readonly FoundToken[]): string {
  let result = '';
  let kept = 0;
  for (const token of tokens) {
    let from = token.from;
    while (from > kept && /\s/.test(text[from - 1] ?? '')) from -= 1;
    let to = token.to;
    if (from === 0) while (to < text.length && /\s/.test(text[to] ?? '')) to += 1;
    result += text.slice(kept, from);
    kept = to;
  }
  return result + text.slice(kept);
}

export function chipLabel(chip: Chip): string {
  switch (chip.kind) {
    case 'project':
      return `project ${chip.name}`;
    case 'context':
      return `context ${chip.name}`;
    case 'tag':
      return `tag ${chip.name}`;
    case 'priority':
      return `priority ${chip.priority}`;
    case 'start':
      return `start ${chip.day}`;
    case 'box':
      return chip.box === 'noplan' ? 'someday' : chip.box;
  }
}
