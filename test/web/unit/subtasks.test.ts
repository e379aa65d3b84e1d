/** Subtasks in a list (WEB.md 1b): nesting, and where a moved task goes among its siblings. */
import { describe, expect, it } from 'vitest';
import { webTask } from './support/task.ts';
import { nest, placeAmong, subtaskCounts, underTrash } from '../../../web/src/subtasks.ts';

describe('nest', () => {
  const tree = [webTask('a'), webTask('b', { parentId: 'a' }), webTask('c', { parentId: 'b' }), webTask('d')];
  it('puts subtasks under their parents, deeper each level, in the view order', () => {
    expect(nest(tree, new Set()).map(({ task: { id }, depth, branch }) => [id, depth, branch])).toEqual([
      ['a', 0, true],
      ['b', 1, true],
      ['c', 2, false],
      ['d', 0, false],
    ]);
  });
  it('leaves out a collapsed task’s subtree, keeps a child whose parent is elsewhere, and draws a loop', () => {
    expect(nest(tree, new Set(['a'])).map(({ task: { id } }) => id)).toEqual(['a', 'd']);
    expect(nest([webTask('x', { parentId: 'elsewhere' })], new Set()).map(({ depth }) => depth)).toEqual([0]);
    const loop = [webTask('p', { parentId: 'q' }), webTask('q', { parentId: 'p' })];
    expect(
      nest(loop, new Set())
        .map(({ task: { id } }) => id)
        .sort(),
    ).toEqual(['p', 'q']);
  });
});

describe('placeAmong', () => {
  const zeros = ['a', 'b', 'c', 'd'].map((id) => webTask(id));
  it('takes a key between neighbours with room, else pushes the shorter side along', () => {
    const spaced = [webTask('a', { sortOrder: 0 }), webTask('b', { sortOrder: 10 })];
    expect(placeAmong(spaced, 1, webTask('x'))).toEqual([{ id: 'x', sortOrder: 5 }]);
    expect(placeAmong(spaced, 0, webTask('x'))).toEqual([{ id: 'x', sortOrder: -1 }]);
    expect(placeAmong(spaced, 2, webTask('x'))).toEqual([{ id: 'x', sortOrder: 11 }]);
    // All at the default 0: one task above the place is pushed down.
    expect(placeAmong(zeros, 1, webTask('x'))).toEqual([
      { id: 'x', sortOrder: -1 },
      { id: 'a', sortOrder: -2 },
    ]);
    // Near the end: the one below is pushed up instead.
    expect(placeAmong(zeros, 3, webTask('x'))).toEqual([
      { id: 'x', sortOrder: 1 },
      { id: 'd', sortOrder: 2 },
    ]);
  });
});

describe('counts and the trash', () => {
  it('counts done and all subtasks, and hides the subtree of a trashed or deleted parent', () => {
    const byId = new Map(
      [
        webTask('p', { trashed: 1 }),
        webTask('c', { parentId: 'p' }),
        webTask('g', { parentId: 'c', completed: 1 }),
      ].map((item) => [item.id, item]),
    );
    expect(subtaskCounts(byId.values()).get('c')).toEqual({ done: 1, total: 1 });
    expect(underTrash(byId.get('g') ?? webTask('none'), byId)).toBe(true);
    expect(underTrash(byId.get('p') ?? webTask('none'), byId)).toBe(false);
    expect(underTrash(webTask('orphan', { parentId: 'deleted' }), byId)).toBe(true);
  });
});
