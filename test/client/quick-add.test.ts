/** Quick add (WEB.md section 1): the one parser of the web app and the terminal client. */
import { describe, expect, it } from 'vitest';
import { parseQuickAdd, quickAddStartDate, quickAddTask, withoutToken } from '../../src/client/index.js';

describe('quick add', () => {
  it('takes every kind of token out of the title; a context keeps its @', () => {
    const parsed = parseQuickAdd('Buy milk #Home @shop *errand *food !2 ^tomorrow');
    expect(parsed.title).toBe('Buy milk');
    expect(parsed.tokens.map((token) => token.raw)).toEqual(['#Home', '@shop', '*errand', '*food', '!2', '^tomorrow']);
    expect(quickAddTask(parsed, '2026-11-21')).toEqual({
      title: 'Buy milk',
      project: 'Home',
      context: '@shop',
      tags: ['errand', 'food'],
      priority: 2,
      start_at: '2026-11-22',
      all_day: true,
      attribute: 'plan',
    });
  });

  it('reads start dates: today, a date, and the coming weekday, today included', () => {
    // 2026-11-23 is a Monday.
    const on = (text: string): unknown => quickAddTask(parseQuickAdd(`x ${text}`), '2026-11-23').start_at;
    expect(on('^today')).toBe('2026-11-23');
    expect(on('^2027-01-31')).toBe('2027-01-31');
    expect(on('^tue')).toBe('2026-11-24');
    expect(on('^mon')).toBe('2026-11-23');
    expect(on('^Sun')).toBe('2026-11-29');
    expect(on('^TOMORROW')).toBe('2026-11-24');
    expect(quickAddStartDate('sat', '2026-12-31')).toBe('2027-01-02');
    expect(quickAddStartDate('tomorrow', '2028-02-28')).toBe('2028-02-29');
  });

  it('reads boxes: someday, next, waiting; the view box unless a token says otherwise', () => {
    expect(quickAddTask(parseQuickAdd('a ^someday'), '2026-11-23').attribute).toBe('noplan');
    expect(quickAddTask(parseQuickAdd('a ~next'), '2026-11-23').attribute).toBe('next');
    expect(quickAddTask(parseQuickAdd('a ~Waiting'), '2026-11-23', { box: 'next' }).attribute).toBe('waiting');
    expect(quickAddTask(parseQuickAdd('a'), '2026-11-23', { box: 'next' }).attribute).toBe('next');
    expect(quickAddTask(parseQuickAdd('a'), '2026-11-23')).toEqual({ title: 'a' });
  });

  it("takes the view's project or context unless a token names one", () => {
    const place = { project: 'Work', context: '@desk' };
    expect(quickAddTask(parseQuickAdd('a'), '2026-11-23', place)).toEqual({ title: 'a', ...place });
    expect(quickAddTask(parseQuickAdd('a #Home @phone'), '2026-11-23', place)).toEqual({
      title: 'a',
      project: 'Home',
      context: '@phone',
    });
  });

  it('starts a task added to Scheduled without a start date today', () => {
    expect(quickAddTask(parseQuickAdd('a'), '2026-11-23', { box: 'plan' })).toEqual({
      title: 'a',
      attribute: 'plan',
      start_at: '2026-11-23',
      all_day: true,
    });
    expect(quickAddTask(parseQuickAdd('a ^2027-01-02'), '2026-11-23', { box: 'plan' }).start_at).toBe('2027-01-02');
  });

  it('leaves quoted text, lookalikes and everything else in the title unchanged', () => {
    expect(parseQuickAdd('Read "#1 @home *bold" now').title).toBe('Read "#1 @home *bold" now');
    expect(parseQuickAdd('Read "the #1 book" #Books').title).toBe('Read "the #1 book"');
    expect(parseQuickAdd('Fix !4 issue, ^2026-02-30 and ~later; email a@b.c').title).toBe(
      'Fix !4 issue, ^2026-02-30 and ~later; email a@b.c',
    );
    expect(parseQuickAdd('Fix !4 issue ^later ~soon # @ * ! ^ ~ and C# code').tokens).toEqual([]);
    expect(parseQuickAdd('Quote #a"b c" ends').tokens).toEqual([]);
    expect(parseQuickAdd('  spaced   out  #P  title ').title).toBe('spaced   out  title');
    expect(parseQuickAdd('  #Home  Buy   milk  &  <eggs> *shop  ').title).toBe('Buy   milk  &  <eggs>');
    expect(parseQuickAdd('# lone').title).toBe('# lone');
    expect(parseQuickAdd('Tom & Jerry <b> #Home').title).toBe('Tom & Jerry <b>');
  });

  it('lets a later token of a kind win', () => {
    expect(quickAddTask(parseQuickAdd('a #One #Two !1 !3'), '2026-11-23')).toMatchObject({
      project: 'Two',
      priority: 3,
    });
  });

  it('cuts one token out of the text, with the space before it (a chip removed)', () => {
    const text = 'Buy #Home milk *shop';
    const [project, tag] = parseQuickAdd(text).tokens;
    expect(project?.at).toBe(4);
    if (project === undefined || tag === undefined) throw new Error('expected two tokens');
    expect(withoutToken(text, tag)).toBe('Buy #Home milk');
    expect(withoutToken(text, project)).toBe('Buy milk *shop');
    const first = parseQuickAdd('#Home  buy').tokens[0];
    if (first === undefined) throw new Error('expected a token');
    expect(withoutToken('#Home  buy', first)).toBe('buy');
  });
});
