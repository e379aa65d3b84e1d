/** Whole-account search (WEB.md 1b): words and filters, all of which must hold. */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../web/src/api.ts';
import { compileSearch, whereOf } from '../../../web/src/search.ts';
import { webTask } from './support/task.ts';

const DAY = 86_400_000;
const TODAY = '2026-11-26';
const NOON = Date.UTC(2026, 10, 26, 12);

function task(fields: Partial<Task> & { readonly title: string }): Task {
  return webTask(fields.title, fields);
}

const TASKS: readonly Task[] = [
  task({ title: 'Buy milk', attribute: 'plan', startAt: NOON + DAY, project: 'Home', tags: ['shop'] }),
  task({ title: 'Call Ann', attribute: 'next', context: '@phone', priority: 3, endAt: NOON - 2 * DAY }),
  task({ title: 'Old milk receipt', completed: NOON - DAY }),
  task({ title: 'Milk the goat', trashed: NOON - DAY, notes: 'farm' }),
  task({ title: 'Pay rent', attribute: 'plan', startAt: NOON, project: 'home' }),
  task({ title: 'Gone milk', deleted: NOON }),
];

function found(query: string): string[] {
  const test = compileSearch(query);
  if (test === null) return [];
  return TASKS.filter((one) => test(one, { zone: 'UTC', today: TODAY })).map((one) => one.title);
}

describe('whole-account search', () => {
  it('finds words in every box, completed and trashed too, never deleted tasks', () => {
    expect(found('milk')).toEqual(['Buy milk', 'Old milk receipt', 'Milk the goat']);
    expect(found('MILK farm')).toEqual(['Milk the goat']);
    expect(found('   ')).toEqual([]);
    expect(TASKS.map(whereOf)).toEqual(['Scheduled', 'Next', 'Completed', 'Trash', 'Scheduled', 'Inbox']);
  });

  it('takes filters, combined with words as "and"', () => {
    expect(found('#home')).toEqual(['Buy milk', 'Pay rent']);
    expect(found('#home milk')).toEqual(['Buy milk']);
    expect(found('@phone')).toEqual(['Call Ann']);
    expect(found('*shop')).toEqual(['Buy milk']);
    expect(found('!3')).toEqual(['Call Ann']);
    expect(found('is:completed')).toEqual(['Old milk receipt']);
    expect(found('is:trashed')).toEqual(['Milk the goat']);
    expect(found('is:overdue')).toEqual(['Call Ann']);
    expect(found('due:today')).toEqual(['Pay rent']);
    expect(found('due:tomorrow')).toEqual(['Buy milk']);
    expect(found('due:<today')).toEqual(['Call Ann']);
    expect(found('due:>2026-11-26')).toEqual(['Buy milk']);
    expect(found('no:date milk')).toEqual(['Old milk receipt', 'Milk the goat']);
    expect(found('no:project is:open')).toEqual(['Call Ann']);
    // An unknown filter is a word to look for.
    expect(found('is:someday')).toEqual([]);
  });
});
