/**
 * Subtask actions (WEB.md 1b): indent, outdent, reorder and drop, as changes of `parent_id` and
 * `sort_order`. Siblings are the tasks the list shows at the same level under the same parent;
 * the server refuses what breaks API.md 4.4 (a loop, another project) and the app says so.
 */
import { formatWireDate } from '../../src/client/index.js';
import type { Task, TaskBody } from './api.ts';
import { send } from './actions.ts';
import { randomId } from './ids.ts';
import { collapsed, notice, rows, setCollapsed, tasks, zone } from './state.ts';
import { parentOf, placeAmong, sortOrderOf, type OrderChange } from './subtasks.ts';
import { offerUndo } from './undo.ts';

/** A task's siblings as the list shows them, itself included, and its place among them. */
function shownSiblings(id: string): { readonly siblings: readonly Task[]; readonly at: number } | null {
  const all = rows.value;
  const index = all.findIndex((row) => row.type === 'task' && row.task.id === id);
  const row = all[index];
  if (row === undefined || row.type !== 'task') return null;
  const depth = row.depth ?? 0;
  const levelOf = (at: number): number => {
    const other = all[at];
    return other === undefined || other.type !== 'task' ? -1 : (other.depth ?? 0);
  };
  let start = index;
  while (levelOf(start - 1) >= depth) start -= 1;
  let end = index;
  while (levelOf(end + 1) >= depth) end += 1;
  const siblings = all
    .slice(start, end + 1)
    .flatMap((other) => (other.type === 'task' && (other.depth ?? 0) === depth ? [other.task] : []));
  return { siblings, at: siblings.findIndex((task) => task.id === id) };
}

/** The key that puts a new subtask of `parent` after its last one. */
function afterLastChild(parent: Task): number {
  let last: number | null = null;
  for (const task of tasks.value.values())
    if (parentOf(task) === parent.id) last = Math.max(last ?? sortOrderOf(task), sortOrderOf(task));
  return last === null ? 0 : last + 1;
}

/**
 * Sends a task's move (its new parent, if any, and its order) with the order changes of the
 * siblings it pushed along; undo puts its parent and order back.
 */
function sendMove(task: Task, fields: Omit<TaskBody, 'id'>, order: readonly OrderChange[], message: string): void {
  const own = order.find((change) => change.id === task.id);
  send({ id: task.id, ...fields, ...(own === undefined ? {} : { sort_order: own.sortOrder }) });
  for (const change of order) if (change.id !== task.id) send({ id: change.id, sort_order: change.sortOrder });
  offerUndo({ message, revert: { id: task.id, parent_id: parentOf(task), sort_order: sortOrderOf(task) } });
}

/** Makes a task a subtask of the one shown above it at its level (Tab). */
export function indent(task: Task): void {
  const shown = shownSiblings(task.id);
  const above = shown === null ? undefined : shown.siblings[shown.at - 1];
  if (above === undefined) {
    notice.value = `“${task.title}” cannot be indented: no task above it at the same level.`;
    return;
  }
  if (collapsed.value.has(above.id)) setCollapsed(above.id, false);
  sendMove(
    task,
    { parent_id: above.id },
    [{ id: task.id, sortOrder: afterLastChild(above) }],
    `“${task.title}” is now a subtask of “${above.title}”`,
  );
}

/** Makes a subtask a sibling of its parent, just after it (Shift+Tab). */
export function outdent(task: Task): void {
  const parentId = parentOf(task);
  if (parentId === null) return;
  const parent = tasks.value.get(parentId);
  const shown = shownSiblings(parentId);
  const order =
    shown === null
      ? []
      : placeAmong(
          shown.siblings.filter((sibling) => sibling.id !== task.id),
          shown.at + 1,
          task,
        );
  sendMove(
    task,
    { parent_id: parent === undefined ? null : parentOf(parent) },
    order,
    `“${task.title}” moved out of its parent`,
  );
}

/** Moves a task one place up (-1) or down (1) among its siblings (Alt+↑/↓). */
export function moveBy(task: Task, step: -1 | 1): void {
  const shown = shownSiblings(task.id);
  if (shown === null) return;
  const others = shown.siblings.filter((sibling) => sibling.id !== task.id);
  const index = shown.at + step;
  if (index < 0 || index > others.length) return;
  sendMove(task, {}, placeAmong(others, index, task), `Moved “${task.title}” ${step < 0 ? 'up' : 'down'}`);
}

export type DropPlace = 'before' | 'after' | 'into';

/** A dragged task dropped before, after or onto another: reordered, or made its subtask. */
export function drop(task: Task, target: Task, place: DropPlace): void {
  if (task.id === target.id) return;
  if (place === 'into') {
    if (collapsed.value.has(target.id)) setCollapsed(target.id, false);
    sendMove(
      task,
      { parent_id: target.id },
      [{ id: task.id, sortOrder: afterLastChild(target) }],
      `“${task.title}” is now a subtask of “${target.title}”`,
    );
    return;
  }
  const shown = shownSiblings(target.id);
  if (shown === null) return;
  const others = shown.siblings.filter((sibling) => sibling.id !== task.id);
  const index = others.findIndex((sibling) => sibling.id === target.id) + (place === 'after' ? 1 : 0);
  const parent = parentOf(target);
  sendMove(
    task,
    parent === parentOf(task) ? {} : { parent_id: parent },
    placeAmong(others, index, task),
    `Moved “${task.title}”`,
  );
}

/** Adds a subtask (Add subtask in the details): in its parent's box and project, after the others. */
export function addSubtask(parent: Task, title: string): void {
  if (collapsed.value.has(parent.id)) setCollapsed(parent.id, false);
  send({
    id: randomId(),
    title,
    parent_id: parent.id,
    attribute: parent.attribute,
    ...(parent.attribute === 'plan' && parent.startAt !== null
      ? { start_at: formatWireDate(new Date(parent.startAt), zone.value), all_day: parent.allDay }
      : {}),
    ...(parent.project === null ? {} : { project: parent.project }),
    sort_order: afterLastChild(parent),
  });
}
