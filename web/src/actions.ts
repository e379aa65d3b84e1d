/** What a person can do to tasks, as changes handed to the sync engine (which queues and sends them). */
import { formatWireDate, quickAddTask, type QuickAdd } from '../../src/client/index.js';
import type { Box, Task, TaskBody } from './api.ts';
import { startOfDay } from './dates.ts';
import { randomId } from './ids.ts';
import { contexts, projects, route, today, zone } from './state.ts';
import type { SyncEngine } from './sync.ts';
import { offerUndo, takeUndo } from './undo.ts';
import { BOX_NAMES, BOX_VIEWS } from './views.ts';

let engine: SyncEngine | null = null;

export function useEngine(next: SyncEngine | null): void {
  engine = next;
}

/** Syncs now rather than at the next look (after an import, whose changes are the server's). */
export function syncNow(): void {
  engine?.kick();
}

/** Hands one change to the sync engine (applied to the copy at once, queued for the server). */
export function send(body: TaskBody): void {
  void engine?.change(body);
}

/** Midnight of a day in the account's zone, as the wire writes it. */
export function wireDay(day: string): string {
  return formatWireDate(new Date(startOfDay(day, zone.value)), zone.value);
}

/** Adds a quick-add text's task to the current view's box, project or context, tokens applied. */
export function addTask(parsed: QuickAdd): string {
  const current = route.value;
  const place: { box?: Box; project?: string; context?: string } = { box: 'inbox' };
  if (current.kind === 'box') place.box = BOX_VIEWS.find((view) => view.view === current.view)?.box ?? 'inbox';
  const project = current.kind === 'project' ? projects.value.get(current.id)?.name : undefined;
  const context = current.kind === 'context' ? contexts.value.get(current.id)?.name : undefined;
  if (project !== undefined) place.project = project;
  if (context !== undefined) place.context = context;
  const task = quickAddTask(parsed, today.value, place, zone.value);
  const id = randomId();
  send({
    id,
    title: parsed.title,
    attribute: task.attribute ?? 'inbox',
    ...(typeof task.project === 'string' ? { project: task.project } : {}),
    ...(typeof task.context === 'string' ? { context: task.context } : {}),
    ...(task.tags === undefined || task.tags === null ? {} : { tags: task.tags }),
    ...(task.priority === undefined ? {} : { priority: task.priority }),
    // quickAddTask gives an all-day start as a calendar date (`YYYY-MM-DD`): midnight in the
    // account's zone; a start with a time comes as the wire writes it.
    ...(typeof task.start_at === 'string'
      ? task.all_day === false
        ? { start_at: task.start_at, all_day: false }
        : { start_at: wireDay(task.start_at), all_day: true }
      : {}),
  });
  return id;
}

/** A wire date for an instant of the copy, in the account's zone; null stays null. */
function wireOf(instant: number | null): string | null {
  return instant === null ? null : formatWireDate(new Date(instant), zone.value);
}

/**
 * Ticks or unticks a task; the server moves a repeating task instead of completing it, so undoing
 * puts its dates back as well.
 */
export function setCompleted(task: Task, done: boolean): void {
  send({ id: task.id, completed: done ? formatWireDate(new Date(), zone.value) : null });
  const dates = task.repeater === null ? {} : { start_at: wireOf(task.startAt), end_at: wireOf(task.endAt) };
  offerUndo({
    message: `${done ? 'Completed' : 'Reopened'} “${task.title}”`,
    revert: { id: task.id, completed: wireOf(task.completed), ...dates },
  });
}

/** Saves fields edited in the details panel, checked against the version shown. */
export function edit(task: Task, fields: Omit<TaskBody, 'id' | 'if_rev'>): void {
  send({ ...fields, id: task.id, if_rev: task.rev });
}

/** Moves a task to another box (a start today when Scheduled needs one), with undo. */
export function moveTo(task: Task, box: Box, fields: Omit<TaskBody, 'id' | 'if_rev' | 'attribute'>): void {
  edit(task, { attribute: box, ...fields });
  offerUndo({
    message: `Moved “${task.title}” to ${BOX_NAMES[box]}`,
    revert: {
      id: task.id,
      attribute: task.attribute,
      ...('start_at' in fields ? { start_at: wireOf(task.startAt), all_day: task.allDay } : {}),
    },
  });
}

export function setTrashed(task: Task, trashed: boolean): void {
  send({ id: task.id, trashed: trashed ? formatWireDate(new Date(), zone.value) : null });
  offerUndo({
    message: `${trashed ? 'Moved to trash' : 'Restored'} “${task.title}”`,
    revert: { id: task.id, trashed: wireOf(task.trashed) },
  });
}

/** Permanent: the details panel asks first, and there is no undo. */
export function deleteTask(task: Task): void {
  send({ id: task.id, deleted: formatWireDate(new Date(), zone.value) });
}

/** Sends the change that undoes the latest offer, if one still stands. */
export function undo(): void {
  const revert = takeUndo();
  if (revert !== null) send(revert);
}
