import { TASK_FIELDS, type Label, type Task, type TaskDraft } from '../domain/task.js';
import type { MergeContext } from '../domain/task-rules.js';
import type { Store, WriteTx } from '../store/store.js';
import { changeBelow, draftBelow, SUBTREE_COMMIT, type LargeSubtree } from './subtasks.js';
import { visitBelow, walkBelow } from './subtree-walk.js';

/** A task below the changed one, with the parent it had when the subtree was read. */
interface Below {
  readonly id: string;
  readonly parentId: string;
}

/**
 * Writes a large subtree's change ahead of the request that makes it (contract 4.4, issue #22),
 * each task below its own change with its own `rev`, in transactions that each hold the store
 * briefly, so that other accounts' writes commit between them:
 * 1. the subtree is read top-down, a slice of about READ_SLICE tasks per transaction;
 * 2. the change is written deepest first, SUBTREE_COMMIT tasks per commit;
 * 3. a last pass, top-down a slice per transaction, changes what the account's other writes put
 *    below meanwhile (a new subtask of a task not yet moved).
 * The task itself is left to the request, which runs again and writes it last without reading
 * the subtree again. Answers the task's state the subtree was written for.
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
): Promise<Task> {
  const change = changeBelow(large.before, large.after);
  if (change === undefined) return large.after;
  const project = await store.write(accountId, (tx) => committedProject(tx, large.after.project));
  // Only a move names the project: another large change of the same request may not have been
  // carried yet when this one was noted, so the task's project then is no guide.
  const moved = !TASK_FIELDS.project.same(large.before.project, large.after.project);
  const changed = (task: Task): TaskDraft | undefined =>
    draftBelow(task, change(task), context, moved ? project : undefined);
  const rootId = large.after.id;

  const below: Below[] = [];
  for await (const children of walkBelow((ids) => store.write(accountId, (tx) => tx.childrenOf(ids)), rootId)) {
    for (const child of children) if (child.parentId !== null) below.push({ id: child.id, parentId: child.parentId });
  }

  for (let end = below.length; end > 0; end -= SUBTREE_COMMIT) {
    const wanted = new Map(below.slice(Math.max(0, end - SUBTREE_COMMIT), end).map((task) => [task.id, task.parentId]));
    await store.write(accountId, async (tx) => {
      // One read for the chunk: the live children of its parents, of which the chunk's tasks. One
      // moved elsewhere or deleted meanwhile is not among them, and is left alone.
      for (const task of await tx.childrenOf([...new Set(wanted.values())])) {
        const draft = wanted.get(task.id) === task.parentId ? changed(task) : undefined;
        if (draft !== undefined) await tx.put('task', draft);
      }
    });
  }

  await visitBelow(
    (ids) =>
      store.write(accountId, async (tx) => {
        const children = await tx.childrenOf(ids);
        for (const child of children) {
          const draft = changed(child);
          if (draft !== undefined) await tx.put('task', draft);
        }
        return children;
      }),
    rootId,
  );
  return { ...large.after, project };
}

/**
 * The project to move the subtree to, committed: the request that raised LargeSubtree may have
 * made it by name in its transaction, which rolled back. Made here as that request would make it,
 * or the live project of that name when another request made one meanwhile; the request, run
 * again, then finds it by name.
 */
async function committedProject(tx: WriteTx, project: Label | null): Promise<Label | null> {
  if (project === null || (await tx.get('project', project.id)) !== undefined) return project;
  const live = await tx.findLive('project', project.name);
  if (live !== undefined) return { id: live.id, name: live.name };
  await tx.put('project', {
    id: project.id,
    name: project.name,
    notes: '',
    archived: null,
    deleted: null,
    color: null,
  });
  return project;
}
