import { setImmediate as nextTurn } from 'node:timers/promises';
import { invalid } from '../domain/errors.js';
import { TASK_FIELDS, type Label, type Task, type TaskDraft, type TaskInput } from '../domain/task.js';
import { mergeTask, type MergeContext } from '../domain/task-rules.js';
import { sameTask } from '../domain/unchanged.js';
import type { WriteTx } from '../store/store.js';
import { walkBelow } from './subtree-walk.js';

/**
 * The rules of subtasks (contract section 4.4), which every writer meets (/v1, CalDAV, imports):
 * a live task's parent is a live task of the account, never itself or its own descendant, and a
 * subtask is in its parent's project. Answers the draft with the parent's project.
 */
export async function placeInTree(
  tx: WriteTx,
  input: TaskInput,
  existing: Task | undefined,
  draft: TaskDraft,
): Promise<TaskDraft> {
  if (draft.parentId === null || draft.deleted !== null) return draft;
  const parent = await tx.get('task', draft.parentId);
  if (parent === undefined) throw invalid('parent_id', 'no such task');
  if (parent.deleted !== null) throw invalid('parent_id', 'the parent is deleted');
  const parentChanged = existing?.parentId !== draft.parentId;
  if (parentChanged) await refuseLoop(tx, draft.id, parent);
  if (input.project !== undefined && !TASK_FIELDS.project.same(draft.project, parent.project)) {
    // A whole task sent back with a new parent still names its old project: it moves with it.
    const sentBackUnchanged =
      parentChanged && existing !== undefined && TASK_FIELDS.project.same(draft.project, existing.project);
    if (!sentBackUnchanged) throw invalid('project', "a subtask is in its parent's project");
  }
  return { ...draft, project: parent.project };
}

/** A loop of any length: the new parent, or one of its ancestors, is the task itself. */
async function refuseLoop(tx: WriteTx, id: string, parent: Task): Promise<void> {
  const seen = new Set<string>();
  for (let ancestor: Task | undefined = parent; ancestor !== undefined;) {
    if (ancestor.id === id) throw invalid('parent_id', 'a loop: the task would be its own ancestor');
    if (ancestor.parentId === null || seen.has(ancestor.id)) return;
    seen.add(ancestor.id);
    ancestor = await tx.get('task', ancestor.parentId);
  }
}

/** What a change of a task does to each task below it. */
export function changeBelow(before: Task, after: Task): ((child: Task) => TaskInput) | undefined {
  if (before.deleted === null && after.deleted !== null) return () => ({ deleted: after.deleted });
  const moved = !TASK_FIELDS.project.same(before.project, after.project);
  const trashed = before.trashed === null && after.trashed !== null;
  const restored = before.trashed !== null && after.trashed === null;
  if (!moved && !trashed && !restored) return undefined;
  return (child) => ({
    ...(trashed && child.trashed === null ? { trashed: after.trashed } : {}),
    ...(restored && child.trashed !== null ? { trashed: null } : {}),
  });
}

/**
 * A task below a change, as the change leaves it (`project`: where it moves, or undefined when the
 * change moves nothing); undefined when it stays as it was.
 */
export function draftBelow(
  child: Task,
  input: TaskInput,
  context: Omit<MergeContext, 'project' | 'context'>,
  project: Label | null | undefined,
): TaskDraft | undefined {
  const draft = mergeTask(child, input, { ...context, project, context: undefined });
  return sameTask(child, draft) ? undefined : draft;
}

/**
 * The most tasks below one change that its own commit writes. A larger subtree is written ahead
 * in commits of this many (subtree-ahead.ts), so that other accounts' writes commit in between
 * (SQLite has one writer), and the task itself after them.
 */
export const SUBTREE_COMMIT = 500;

/**
 * A change carried to more than SUBTREE_COMMIT tasks below, which `carryToSubtree` (bounded) left
 * for the subtree to be written ahead: the task's state before the request and after it.
 */
export interface LargeSubtree {
  readonly before: Task;
  readonly after: Task;
}

/**
 * Raised at the end of a request whose changes carry to large subtrees, once every other rule of
 * the request passed: its transaction rolls back, the subtrees are written ahead, and the request
 * runs again. A request refused for any other reason writes nothing ahead.
 */
export class LargeSubtrees extends Error {
  constructor(readonly subtrees: readonly LargeSubtree[]) {
    super(`${subtrees.length} subtrees are written ahead in commits of ${SUBTREE_COMMIT}`);
    this.name = 'LargeSubtrees';
  }
}

/**
 * How large a subtree one commit may carry: unbounded (PostgreSQL, CalDAV's PUT, imports: one
 * commit, as the contract has it), or bounded (tasks.ts, writeWithSubtreesAhead): a larger one is
 * noted in `large` and not carried, but for the tasks whose subtree was written ahead, each with
 * the state it was written ahead for.
 */
export type SubtreeBound =
  'unbounded' | { readonly writtenAhead: ReadonlyMap<string, Task>; readonly large: LargeSubtree[] };

/** Whether two states of a task carry the same change to the tasks below it. */
function sameCarry(ahead: Task, after: Task): boolean {
  return (
    TASK_FIELDS.project.same(ahead.project, after.project) &&
    (ahead.trashed === null) === (after.trashed === null) &&
    (ahead.deleted === null) === (after.deleted === null)
  );
}

/**
 * Tasks written between two turns of the event loop, as renames do (labels.ts): a put on SQLite
 * does not wait for anything, and other accounts' reads must be answered meanwhile.
 */
const TASKS_PER_TURN = 500;

/**
 * Carries a task's move to another project, its trashing, restoring and deletion down its whole
 * subtree, in the caller's transaction: each task below a change of its own, with its own `rev`.
 * Bounded, it stops reading as soon as more than SUBTREE_COMMIT would change and notes the change
 * in `bound.large`, writing none; and a subtree written ahead for this very change is not read
 * again (the write-ahead ended with a pass over the whole subtree).
 */
export async function carryToSubtree(
  tx: WriteTx,
  before: Task | undefined,
  after: Task,
  context: Omit<MergeContext, 'project' | 'context'>,
  bound: SubtreeBound = 'unbounded',
): Promise<void> {
  if (before === undefined) return;
  const change = changeBelow(before, after);
  if (change === undefined) return;
  const ahead = bound === 'unbounded' ? undefined : bound.writtenAhead.get(after.id);
  if (ahead !== undefined && sameCarry(ahead, after)) return;
  const project: Label | null = after.project;
  const drafts: TaskDraft[] = [];
  for await (const children of walkBelow((ids) => tx.childrenOf(ids), after.id)) {
    for (const child of children) {
      const draft = draftBelow(child, change(child), context, project);
      if (draft !== undefined) drafts.push(draft);
    }
    if (bound !== 'unbounded' && drafts.length > SUBTREE_COMMIT) {
      bound.large.push({ before, after });
      return;
    }
  }
  for (const [index, draft] of drafts.entries()) {
    await tx.put('task', draft);
    if ((index + 1) % TASKS_PER_TURN === 0) await nextTurn();
  }
}
