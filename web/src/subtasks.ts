/**
 * Subtasks in a list (WEB.md 1b, API.md 4.4), as plain functions: a view's tasks nested under
 * their parents, and where a moved task goes among its siblings (`sort_order`). The server keeps
 * the rules (no loops, a subtree in one project); these only draw and propose.
 */
import type { Task } from './api.ts';

/** A task as a list shows it: how deep it sits, and whether it has subtasks shown under it. */
export interface Nested {
  readonly task: Task;
  readonly depth: number;
  readonly branch: boolean;
}

export const parentOf = (task: Task): string | null => task.parentId ?? null;
export const sortOrderOf = (task: Task): number => task.sortOrder ?? 0;

/**
 * `members` (in the view's order) nested: each task under its parent when the parent is among
 * them, else at the top; the subtasks of a collapsed task are left out. A loop (a change the
 * server will refuse, shown meanwhile) draws its tasks at the top rather than losing them.
 */
export function nest(members: readonly Task[], collapsed: ReadonlySet<string>): Nested[] {
  const ids = new Set<string>();
  let anyChild = false;
  for (const task of members) {
    ids.add(task.id);
    if (parentOf(task) !== null) anyChild = true;
  }
  // Most lists have no subtasks at all: no tree to build.
  if (!anyChild) return members.map((task) => ({ task, depth: 0, branch: false }));
  const children = new Map<string, Task[]>();
  const roots: Task[] = [];
  for (const task of members) {
    const parent = parentOf(task);
    if (parent === null || parent === task.id || !ids.has(parent)) {
      roots.push(task);
      continue;
    }
    const siblings = children.get(parent);
    if (siblings === undefined) children.set(parent, [task]);
    else siblings.push(task);
  }
  const out: Nested[] = [];
  const placed = new Set<string>();
  const walk = (task: Task, depth: number): void => {
    if (placed.has(task.id)) return;
    placed.add(task.id);
    const below = children.get(task.id) ?? [];
    out.push({ task, depth, branch: below.length > 0 });
    if (collapsed.has(task.id)) {
      // Hidden, but counted as placed: a collapsed subtree is not a loop.
      const hide = (ids: readonly Task[]): void => {
        for (const child of ids) {
          if (placed.has(child.id)) continue;
          placed.add(child.id);
          hide(children.get(child.id) ?? []);
        }
      };
      hide(below);
      return;
    }
    for (const child of below) walk(child, depth + 1);
  };
  for (const task of roots) walk(task, 0);
  for (const task of members) walk(task, 0);
  return out;
}

/**
 * Whether a task's parent, or one of its ancestors, is in the trash or gone from the copy: the
 * server trashes and deletes a whole subtree in one commit, and the next round brings each
 * subtask's own change; until then the list already leaves them out.
 */
export function underTrash(task: Task, byId: ReadonlyMap<string, Task>): boolean {
  let parent = parentOf(task);
  // Asked of every task at every change of the data: a top-level one costs nothing.
  if (parent === null) return false;
  const seen = new Set<string>([task.id]);
  while (parent !== null && !seen.has(parent)) {
    const above = byId.get(parent);
    if (above === undefined) return true;
    if (above.trashed !== null) return true;
    seen.add(parent);
    parent = parentOf(above);
  }
  return false;
}

/** Done and all subtasks of each parent (trashed ones left out), for the "2/5" beside it. */
export function subtaskCounts(tasks: Iterable<Task>): Map<string, { done: number; total: number }> {
  const counts = new Map<string, { done: number; total: number }>();
  for (const task of tasks) {
    const parent = parentOf(task);
    if (parent === null || task.trashed !== null || task.deleted !== null) continue;
    const count = counts.get(parent) ?? { done: 0, total: 0 };
    count.total += 1;
    if (task.completed !== null) count.done += 1;
    counts.set(parent, count);
  }
  return counts;
}

export interface OrderChange {
  readonly id: string;
  readonly sortOrder: number;
}

/**
 * The `sort_order` changes that put `moved` at `index` among `siblings` (in the order shown,
 * `moved` not among them). Ties in sort_order are broken by the view's own order, so a key equal
 * to a neighbour's is not enough: the moved task gets a key strictly between its neighbours',
 * and where there is no room the neighbours on one side are pushed along, whichever side needs
 * fewer changes (a list whose tasks all have the default 0 changes only the tasks above, or
 * below, the place).
 */
export function placeAmong(siblings: readonly Task[], index: number, moved: Task): OrderChange[] {
  const before = siblings[index - 1];
  const after = siblings[index];
  if (before === undefined && after === undefined) return [];
  if (before === undefined && after !== undefined) return [{ id: moved.id, sortOrder: sortOrderOf(after) - 1 }];
  if (after === undefined && before !== undefined) return [{ id: moved.id, sortOrder: sortOrderOf(before) + 1 }];
  if (before === undefined || after === undefined) return [];
  const low = sortOrderOf(before);
  const high = sortOrderOf(after);
  if (high - low >= 2) return [{ id: moved.id, sortOrder: low + Math.floor((high - low) / 2) }];
  // Push the tasks above down.
  const up: OrderChange[] = [{ id: moved.id, sortOrder: high - 1 }];
  let key = high - 1;
  for (let at = index - 1; at >= 0; at -= 1) {
    const sibling = siblings[at];
    if (sibling === undefined || sortOrderOf(sibling) < key) break;
    key -= 1;
    up.push({ id: sibling.id, sortOrder: key });
  }
  // Or push the tasks below up.
  const down: OrderChange[] = [{ id: moved.id, sortOrder: low + 1 }];
  key = low + 1;
  for (let at = index; at < siblings.length; at += 1) {
    const sibling = siblings[at];
    if (sibling === undefined || sortOrderOf(sibling) > key) break;
    key += 1;
    down.push({ id: sibling.id, sortOrder: key });
  }
  return up.length <= down.length ? up : down;
}
