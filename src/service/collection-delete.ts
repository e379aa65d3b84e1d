import type { Account } from '../domain/account.js';
import type { Task } from '../domain/task.js';
import type { Clock, Micros } from '../domain/time.js';
import type { Store, WriteTx } from '../store/store.js';
import { writeLabels } from './labels.js';
import type { SubtreeBound } from './subtasks.js';
import { upsertOne, writeWithSubtreesAhead } from './tasks.js';

/**
 * Tasks of a deleted collection read per commit where one account's commit holds every other
 * (SQLite). Fewer than a rename's LABEL_COMMIT: each top-level one is a full task write (the
 * trash, the project, what follows below), about 0.2 ms each here, and 100 keep a commit near 20 ms.
 */
const TRASH_COMMIT = 100;

/**
 * A project's collection deleted in the caller's transaction (CALDAV.md: its tasks go to the
 * trash, then the project is deleted): each top-level task of the project leaves it for the
 * trash, its subtasks following (service/subtasks.ts), and the project is deleted. False, and
 * nothing written, when there is no such live project.
 */
export async function deleteCollectionIn(
  tx: WriteTx,
  zone: string,
  projectId: string,
  now: Micros,
  bound: SubtreeBound = 'unbounded',
): Promise<boolean> {
  if (!(await isLiveProject(tx, projectId))) return false;
  for (const task of await tx.withLabel('project', projectId)) {
    if (task.parentId === null) await trashOutOf(tx, zone, task, now, bound);
  }
  await writeLabels(tx, 'project', [{ id: projectId, deleted: now }], false);
  return true;
}

/**
 * DELETE of a collection (CALDAV.md): on SQLite a large one has its tasks moved to the trash
 * ahead (trashCollectionAhead), then deleteCollectionIn does the rest in one commit, a large
 * subtree below one of its tasks written ahead as /v1 does (tasks.ts). False when there is no
 * such live project.
 */
export async function trashAndDeleteCollection(
  store: Store,
  account: Account,
  projectId: string,
  now: Clock,
): Promise<boolean> {
  await trashCollectionAhead(store, account, projectId, now);
  return writeWithSubtreesAhead(store, account, now, 2 * TRASH_COMMIT, (tx, bound) =>
    deleteCollectionIn(tx, account.timezone, projectId, now(), bound),
  );
}

async function isLiveProject(tx: WriteTx, projectId: string): Promise<boolean> {
  const existing = await tx.get('project', projectId);
  return existing !== undefined && existing.deleted === null;
}

/**
 * Where one account's commit holds every other (SQLite), a collection of more than TRASH_COMMIT
 * tasks has its top-level tasks (with their subtasks) moved to the trash ahead, TRASH_COMMIT of
 * the project's tasks read per commit, so that other accounts' writes commit between them;
 * deleteCollectionIn then does the rest in one commit. A request cut short leaves the tasks in
 * the trash and the project as it was: a DELETE sent again finishes it.
 */
async function trashCollectionAhead(store: Store, account: Account, projectId: string, now: Clock): Promise<void> {
  if (!store.oneWriterForAll) return;
  // The first task of the last slice: each commit takes it out of the project, so meeting it again
  // would mean no way forward, and the last commit takes the rest.
  let lastFirst: string | undefined;
  for (;;) {
    // A top-level task with a large subtree has it written ahead too (tasks.ts).
    const first = await writeWithSubtreesAhead(store, account, now, 2 * TRASH_COMMIT, async (tx, bound) => {
      if (!(await isLiveProject(tx, projectId))) return undefined;
      const slice = await tx.withLabel('project', projectId, { shown: null, limit: TRASH_COMMIT });
      if (slice.length < TRASH_COMMIT || slice[0]?.id === lastFirst) return undefined;
      // Each task of the slice leaves with its top-level task, written once: its subtree follows it.
      const tops = new Map<string, Task>();
      for (const task of slice) {
        const top = await topOf(tx, task);
        tops.set(top.id, top);
      }
      const at = now();
      for (const top of tops.values()) await trashOutOf(tx, account.timezone, top, at, bound);
      return slice[0]?.id;
    });
    if (first === undefined) return;
    lastFirst = first;
  }
}

/** The top-level task above `task` (a subtask is always in its parent's project, API.md 4.4). */
async function topOf(tx: WriteTx, task: Task): Promise<Task> {
  let current = task;
  while (current.parentId !== null) {
    const parent = await tx.get('task', current.parentId);
    // Never so (a live task's parent is live), but a walk must end.
    if (parent === undefined || parent.deleted !== null) return current;
    current = parent;
  }
  return current;
}

async function trashOutOf(tx: WriteTx, zone: string, task: Task, now: Micros, bound: SubtreeBound): Promise<void> {
  const trash = task.trashed === null ? { trashed: now } : {};
  await upsertOne(tx, zone, { id: task.id, project: null, ...trash }, now, bound);
}
