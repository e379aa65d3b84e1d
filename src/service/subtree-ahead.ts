import type { Label, Task } from '../domain/task.js';
import { mergeTask, type MergeContext } from '../domain/task-rules.js';
import { sameTask } from '../domain/unchanged.js';
import type { Store } from '../store/store.js';
import { changeBelow, SUBTREE_COMMIT, type LargeSubtree } from './subtasks.js';

/** A task below the changed one, with the parent it had when the subtree was read. */
interface Below {
  readonly id: string;
  readonly parentId: string;
}

/**
 * Writes a large subtree's change ahead of the request that makes it (contract 4.4, issue #22):
 * the tasks below, deepest first, in commits of SUBTREE_COMMIT, each task its own change with its
 * own `rev`. Other accounts' writes commit between two of them; the task itself is left to the
 * request, which runs again and writes it last, with whatever of the subtree changed meanwhile.
 *
 * Deepest first, so that at every commit a task changed this way has its whole subtree changed
 * already: a trashed or deleted task never has a live task below it, and a request cut short
 * (a crash) leaves the task itself unchanged, so sending it again finishes the subtree.
 */
export async function writeSubtreeAhead(
  store: Store,
  accountId: number,
  large: LargeSubtree,
  context: Omit<MergeContext, 'project' | 'context'>,
): Promise<void> {
  const change = changeBelow(large.before, large.after);
  if (change === undefined) return;
  const project: Label | null = large.after.project;
  const below = await store.write(accountId, (tx) => readBelow((ids) => tx.childrenOf(ids), large.after.id));
  for (let end = below.length; end > 0; end -= SUBTREE_COMMIT) {
    const chunk = below.slice(Math.max(0, end - SUBTREE_COMMIT), end);
    const wanted = new Map(chunk.map((task) => [task.id, task.parentId]));
    await store.write(accountId, async (tx) => {
      // One read for the chunk: the live children of its parents, of which the chunk's tasks.
      const current = await tx.childrenOf([...new Set(wanted.values())]);
      // A task moved elsewhere or deleted meanwhile is not in it: the request's own commit walks
      // the subtree again.
      for (const task of current.filter((found) => wanted.get(found.id) === found.parentId)) {
        const draft = mergeTask(task, change(task), { ...context, project, context: undefined });
        if (!sameTask(task, draft)) await tx.put('task', draft);
      }
    });
  }
}

/** Every live task below `rootId`, level by level from the top (one read per level). */
async function readBelow(
  childrenOf: (ids: readonly string[]) => Promise<readonly Task[]>,
  rootId: string,
): Promise<Below[]> {
  const below: Below[] = [];
  for (let level = [rootId]; level.length > 0;) {
    const children = await childrenOf(level);
    for (const child of children) {
      if (child.parentId !== null) below.push({ id: child.id, parentId: child.parentId });
    }
    level = children.map((child) => child.id);
  }
  return below;
}
