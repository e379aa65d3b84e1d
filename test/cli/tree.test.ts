import { describe, expect, it } from 'vitest';
import { inTreeOrder } from '../../src/cli/client/tree.js';

const task = (id: string, parent: string | null = null) => ({ id, parent_id: parent });

describe('the terminal client lists subtasks under their parent', () => {
  it('puts each subtask after its parent, one level deeper, keeping the order among siblings', () => {
    const listed = [task('b', 'a'), task('a'), task('z'), task('c', 'b'), task('d', 'a')];
    expect(inTreeOrder(listed).map(({ task: { id }, depth }) => `${depth}${id}`)).toEqual([
      '0a',
      '1b',
      '2c',
      '1d',
      '0z',
    ]);
  });

  it('shows a subtask whose parent is not listed (done, or in another box) at the top', () => {
    expect(inTreeOrder([task('b', 'gone'), task('c', 'b')]).map(({ depth }) => depth)).toEqual([0, 1]);
  });
});
