/** Quick add (WEB.md section 1): the one parser of the web app and the terminal client. */
import { describe, expect, it } from 'vitest';
import { parseQuickAdd, quickAddTask } from '../../src/client/index.js';

describe('quick add', () => {
  it('takes every kind of token out of the title', () => {
    const parsed = parseQuickAdd('Buy milk #Home @shop *errand *food !2 ^tomorrow');
    expect(parsed.title).toBe('Buy milk');
    expect(parsed.tokens.map((token) => token.raw)).toEqual(['#Home', '@shop', '*errand', '*food', '!2', '^tomorrow']);
    expect(quickAddTask(parsed, '2026-11-21')).toEqual({
      title: 'Buy milk',
      project: 'Home',
      context: 'shop',
      tags: ['errand', 'food'],
      priority: 2,
      start_at: '2026-11-22',
      all_day: true,
      attribute: 'plan',
    });
  });

  it('reads start dates: today, a date, and the next weekday after today', () => {
    // 2026-11-23 is a Monday.
    const on = (text: string): unknown => quickAddTask(parseQuickAdd(`x ${text}`), '2026-11-23').start_at;
    expect(on('^today')).toBe('2026-11-23');
    expect(on('^2027-01-31')).toBe('2027-01-31');
    expect(on('^tue')).toBe('2026-11-24');
    expect(on('^mon')).toBe('2026-11-30');
    expect(on('^sun')).toBe('2026-11-29');
    expect(on('^TOMORROW')).toBe('2026-11-24');
  });

  it('reads boxes: someday, next, waiting; the view box unless a token says otherwise', () => {
    expect(quickAddTask(parseQuickAdd('a ^someday'), '2026-11-23').attribute).toBe('noplan');
    expect(quickAddTask(parseQuickAdd('a ~next'), '2026-11-23').attribute).toBe('next');
    expect(quickAddTask(parseQuickAdd('a ~waiting'), '2026-11-23', 'next').attribute).toBe('waiting');
    expect(quickAddTask(parseQuickAdd('a'), '2026-11-23', 'next').attribute).toBe('next');
    expect(quickAddTask(parseQuickAdd('a'), '2026-11-23')).toEqual({ title: 'a' });
  });

  it('leaves quoted text, lookalikes and everything else in the title unchanged', () => {
    expect(parseQuickAdd('Read "#1 @home *bold" now').title).toBe('Read "#1 @home *bold" now');
    expect(parseQuickAdd('Fix !4 issue, ^2026-02-30 and ~later; email a@b.c').title).toBe(
      'Fix !4 issue, ^2026-02-30 and ~later; email a@b.c',
    );
    expect(parseQuickAdd('Fix !4 issue').tokens).toEqual([]);
    expect(parseQuickAdd('  spaced   out  #P  title ').title).toBe('spaced   out  title');
    expect(parseQuickAdd('# lone').title).toBe('# lone');
    expect(parseQuickAdd('Tom & Jerry <b> #Home').title).toBe('Tom & Jerry <b>');
  });

  it('lets a later token of a kind win', () => {
    expect(quickAddTask(parseQuickAdd('a #One #Two !1 !3'), '2026-11-23')).toMatchObject({
      project: 'Two',
      priority: 3,
    });
  });
});
