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

  it('reads times and relative days: ^9am, ^tomorrow 18:30, ^fri 9am, ^next week, ^in 3 days, a date and a time', () => {
    const today = '2026-11-26'; // a Thursday
    const start = (text: string, zone = 'UTC'): unknown => {
      const task = quickAddTask(parseQuickAdd(text), today, {}, zone);
      return [task.start_at, task.all_day, task.attribute];
    };
    expect(start('Call ^9am')).toEqual(['2026-11-26 09:00:00 +0000', false, 'plan']);
    expect(start('Call ^9:30pm')).toEqual(['2026-11-26 21:30:00 +0000', false, 'plan']);
    expect(start('Call ^12am')).toEqual(['2026-11-26 00:00:00 +0000', false, 'plan']);
    expect(start('Call ^tomorrow 18:30', 'Europe/Berlin')).toEqual(['2026-11-27 18:30:00 +0100', false, 'plan']);
    expect(start('Call ^fri 9am')).toEqual(['2026-11-27 09:00:00 +0000', false, 'plan']);
    expect(start('Plan ^next week')).toEqual(['2026-12-03', true, 'plan']);
    expect(start('Plan ^in 3 days')).toEqual(['2026-11-29', true, 'plan']);
    expect(start('Plan ^in 2 weeks 8am')).toEqual(['2026-12-10 08:00:00 +0000', false, 'plan']);
    expect(start('Eve ^2026-12-24 10:00', 'America/New_York')).toEqual(['2026-12-24 10:00:00 -0500', false, 'plan']);
    // The wall clock that exists on a day the clocks go forward (Berlin, 2026-03-29 02:00 → 03:00).
    expect(quickAddTask(parseQuickAdd('x ^2026-03-29 03:30'), today, {}, 'Europe/Berlin').start_at).toBe(
      '2026-03-29 03:30:00 +0200',
    );

    const parsed = parseQuickAdd('Call Ann ^tomorrow 18:30 about ^in 3 days stuff');
    expect(parsed.title).toBe('Call Ann about stuff');
    expect(parsed.tokens.map((token) => token.raw)).toEqual(['^tomorrow 18:30', '^in 3 days']);
    const [first] = parsed.tokens;
    if (first === undefined) throw new Error('expected a token');
    expect(withoutToken('Call Ann ^tomorrow 18:30 about ^in 3 days stuff', first)).toBe(
      'Call Ann about ^in 3 days stuff',
    );
    // Not times, not relative days: kept in the title.
    expect(parseQuickAdd('Buy ^tomorrow 2 apples').title).toBe('Buy 2 apples');
    expect(parseQuickAdd('x ^25:00 ^13pm ^in 3 months ^next year ^in many days').title).toBe(
      'x ^25:00 ^13pm ^in 3 months ^next year ^in many days',
    );
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
