/** What an empty view says (issue #26, item 7): each its own, each saying how a task gets there. */
import { describe, expect, it } from 'vitest';
import { emptyViewText, routeOf, type Route } from '../../../web/src/views.ts';

const VIEWS = ['inbox', 'next', 'scheduled', 'someday', 'waiting', 'completed', 'trash'] as const;

describe('an empty view', () => {
  it('says per view why nothing is there and what to do, never only "Nothing here."', () => {
    const routes: Route[] = [
      ...VIEWS.map((view) => routeOf(`#/${view}`)),
      { kind: 'project', id: 'p1' },
      { kind: 'context', id: 'c1' },
    ];
    const texts = routes.map((route) => emptyViewText(route, ''));
    expect(new Set(texts).size).toBe(routes.length);
    for (const text of texts) {
      expect(text).not.toBe('Nothing here.');
      // Something to do: a token for the add field, or a control to use.
      expect(text).toMatch(/field above|details|Tick/);
    }
    expect(emptyViewText(routeOf('#/scheduled'), '')).toContain('^tomorrow');
    expect(emptyViewText(routeOf('#/next'), '')).toContain('~next');
  });

  it('says when the search finds nothing in the whole account, and how to find more', () => {
    expect(emptyViewText(routeOf('#/inbox'), 'milk')).toMatch(/^No task matches, in any box\. Fewer words find more/);
    expect(emptyViewText(routeOf('#/inbox'), '  ')).toContain('Your inbox is empty');
  });
});
