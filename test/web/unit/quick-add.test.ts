import { describe, expect, it } from 'vitest';
import { parseQuickAdd, withoutTokens } from '../../../web/src/quick-add.ts';

// 2026-11-24 is a Tuesday (weekday 2).
const TODAY = '2026-11-24';
const parse = (text: string) => parseQuickAdd(text, TODAY, 2);
const chips = (text: string) => parse(text).tokens.map((token) => token.chip);

describe('quick add', () => {
  it('reads every token kind and keeps the rest of the text as the title', () => {
    const parsed = parse('Call Ann #Family @phone *kids !2 ^tomorrow ~waiting');
    expect(parsed.title).toBe('Call Ann');
    expect(parsed.tokens.map((token) => token.chip)).toEqual([
      { kind: 'project', name: 'Family' },
      { kind: 'context', name: '@phone' },
      { kind: 'tag', name: 'kids' },
      { kind: 'priority', priority: 2 },
      { kind: 'start', day: '2026-11-25' },
      { kind: 'box', box: 'waiting' },
    ]);
  });

  it('reads start days: today, weekdays (today counts), dates, someday, next', () => {
    expect(chips('a ^today ^tue ^mon ^sun ^2027-02-28 ^someday ~next')).toEqual([
      { kind: 'start', day: '2026-11-24' },
      { kind: 'start', day: '2026-11-24' },
      { kind: 'start', day: '2026-11-30' },
      { kind: 'start', day: '2026-11-29' },
      { kind: 'start', day: '2027-02-28' },
      { kind: 'box', box: 'noplan' },
      { kind: 'box', box: 'next' },
    ]);
  });

  it('leaves words that name nothing, and anything in double quotes, in the title', () => {
    const parsed = parse('Fix bug !7 ^later ^2026-02-30 ~soon # @ "#1 @home" and C# code');
    expect(parsed.tokens).toEqual([]);
    expect(parsed.title).toBe('Fix bug !7 ^later ^2026-02-30 ~soon # @ "#1 @home" and C# code');
    expect(parse('Read "the #1 book" #Books').title).toBe('Read "the #1 book"');
  });

  it('changes nothing else in the title', () => {
    expect(parse('  #Home  Buy   milk  &  <eggs> *shop  ').title).toBe('Buy   milk  &  <eggs>');
  });

  it('removes one token from the text (a chip removed)', () => {
    const text = 'Buy milk #Home *shop';
    const [, tag] = parse(text).tokens;
    expect(tag).toBeDefined();
    if (tag !== undefined) expect(withoutTokens(text, [tag])).toBe('Buy milk #Home');
  });
});
