import type { Task } from '../domain/task.js';

/** About how many tasks one read of children answers, so that a read holds the store briefly. */
export const READ_SLICE = 500;

/**
 * The live tasks below `rootId`, top-down, one slice of parents at a time. A slice holds as many
 * parents as should have about READ_SLICE children by the last slice's fan-out, and at most twice
 * the last slice's parents, so a level of leaves is read in a few growing reads and a sudden wide
 * level does not make one huge read. (One parent with more children than that is still one read.)
 */
export async function* walkBelow(
  childrenOf: (parentIds: readonly string[]) => Promise<readonly Task[]>,
  rootId: string,
): AsyncGenerator<readonly Task[]> {
  let parents = 1;
  let fanOut = READ_SLICE;
  for (let level: readonly string[] = [rootId]; level.length > 0;) {
    const next: string[] = [];
    for (let start = 0; start < level.length;) {
      parents = Math.max(1, Math.min(parents * 2, Math.floor(READ_SLICE / Math.max(1, fanOut))));
      const slice = level.slice(start, start + parents);
      start += slice.length;
      const children = await childrenOf(slice);
      fanOut = children.length / slice.length;
      for (const child of children) next.push(child.id);
      yield children;
    }
    level = next;
  }
}

/** Walks the whole subtree for what `childrenOf` does to each slice. */
export async function visitBelow(
  childrenOf: (parentIds: readonly string[]) => Promise<readonly Task[]>,
  rootId: string,
): Promise<void> {
  const slices = walkBelow(childrenOf, rootId);
  while (!(await slices.next()).done);
}
