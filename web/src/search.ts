/**
 * Whole-account search (WEB.md 1b): every task, completed and trashed too, by words (in title,
 * notes, tags, project and context) and filters, all of which must hold: `#project`, `@context`,
 * `*tag`, `!1`..`!3`, `is:completed`, `is:trashed`, `is:open`, `is:overdue`, `due:today`,
 * `due:tomorrow`, `due:YYYY-MM-DD`, `due:<YYYY-MM-DD`, `due:>YYYY-MM-DD` (`today` in place of a
 * date too), `no:date`, `no:project`, `no:context`. A task's "due" day is its deadline's, else its
 * start's.
 */
import type { Task } from './api.ts';
import { addDays, dayOf } from './dates.ts';

/** Where a task is, as the navigation names it. */
export type Where = 'Inbox' | 'Next' | 'Scheduled' | 'Someday' | 'Waiting' | 'Completed' | 'Trash';

export const WHERE_ORDER: readonly Where[] = ['Inbox', 'Next', 'Scheduled', 'Someday', 'Waiting', 'Completed', 'Trash'];

const BOX_WHERE: Readonly<Record<Task['attribute'], Where>> = {
  inbox: 'Inbox',
  next: 'Next',
  plan: 'Scheduled',
  noplan: 'Someday',
  waiting: 'Waiting',
};

export function whereOf(task: Task): Where {
  if (task.trashed !== null) return 'Trash';
  if (task.completed !== null) return 'Completed';
  return BOX_WHERE[task.attribute];
}

export interface SearchContext {
  readonly zone: string;
  readonly today: string;
}

type Test = (task: Task, context: SearchContext) => boolean;

const isOpen = (task: Task): boolean => task.completed === null && task.trashed === null;

function dueDay(task: Task, zone: string): string | null {
  const instant = task.endAt ?? task.startAt;
  return instant === null ? null : dayOf(instant, zone);
}

/** `today`, `tomorrow` or `YYYY-MM-DD` as a day; null when it is none of those. */
function dayNamed(text: string, today: string): string | null {
  if (text === 'today') return today;
  if (text === 'tomorrow') return addDays(today, 1);
  if (text === 'yesterday') return addDays(today, -1);
  return /^\d{4}-\d{2}-\d{2}$/.test(text) ? text : null;
}

function dueTest(value: string): Test | null {
  const comparison = /^([<>]?)(.+)$/.exec(value);
  if (comparison === null) return null;
  const [, sign = '', named = ''] = comparison;
  return (task, { zone, today }) => {
    const day = dayNamed(named, today);
    const due = dueDay(task, zone);
    if (day === null || due === null) return false;
    return sign === '<' ? due < day : sign === '>' ? due > day : due === day;
  };
}

const IS: Readonly<Record<string, Test>> = {
  completed: (task) => task.completed !== null && task.trashed === null,
  trashed: (task) => task.trashed !== null,
  open: isOpen,
  overdue: (task, { zone, today }) => {
    if (!isOpen(task)) return false;
    if (task.endAt !== null) return dayOf(task.endAt, zone) < today;
    return task.attribute === 'plan' && task.startAt !== null && dayOf(task.startAt, zone) < today;
  },
};

const NO: Readonly<Record<string, Test>> = {
  date: (task) => task.startAt === null && task.endAt === null,
  project: (task) => task.project === null,
  context: (task) => task.context === null,
};

/** A filter word as a test; null when the word is plain text to look for. */
function filterOf(word: string): Test | null {
  const lower = word.toLowerCase();
  if (/^#.+/.test(word)) return (task) => task.project?.toLowerCase() === lower.slice(1);
  if (/^@.+/.test(word)) return (task) => task.context?.toLowerCase() === lower;
  if (/^\*.+/.test(word)) return (task) => task.tags.some((tag) => tag.toLowerCase() === lower.slice(1));
  if (/^![1-3]$/.test(word)) return (task) => task.priority === Number(word.slice(1));
  if (lower.startsWith('is:')) return IS[lower.slice(3)] ?? null;
  if (lower.startsWith('no:')) return NO[lower.slice(3)] ?? null;
  if (lower.startsWith('due:')) return dueTest(lower.slice(4));
  return null;
}

const haystacks = new WeakMap<Task, string>();

/** The lower-case text words are looked for in, made once per version of a task. */
function haystackOf(task: Task): string {
  let haystack = haystacks.get(task);
  if (haystack === undefined) {
    haystack = [task.title, task.notes, task.tags.join(' '), task.project ?? '', task.context ?? '']
      .join('\n')
      .toLowerCase();
    haystacks.set(task, haystack);
  }
  return haystack;
}

/** A search as one test of a task; null for an empty search. */
export function compileSearch(query: string): Test | null {
  const words = query.split(/\s+/).filter((word) => word !== '');
  if (words.length === 0) return null;
  const tests: Test[] = [];
  const texts: string[] = [];
  for (const word of words) {
    const filter = filterOf(word);
    if (filter === null) texts.push(word.toLowerCase());
    else tests.push(filter);
  }
  return (task, context) => {
    if (task.deleted !== null) return false;
    for (const test of tests) if (!test(task, context)) return false;
    if (texts.length === 0) return true;
    const haystack = haystackOf(task);
    return texts.every((text) => haystack.includes(text));
  };
}
