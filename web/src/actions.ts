/** What a person can do to tasks, as changes handed to the sync engine (which queues and sends them). */
import type { Box, Task, TaskBody } from './api.ts';
import { formatWireDate, startOfDay } from './dates.ts';
import { randomId } from './ids.ts';
import type { QuickAdd } from './quick-add.ts';
import { contexts, projects, route, today, zone } from './state.ts';
import type { SyncEngine } from './sync.ts';
import { BOX_VIEWS } from './views.ts';

let engine: SyncEngine | null = null;

export function useEngine(next: SyncEngine | null): void {
  engine = next;
}

function send(body: TaskBody): void {
  void engine?.change(body);
}

/** Midnight of a day in the account's zone, as the wire writes it. */
export function wireDay(day: string): string {
  return formatWireDate(startOfDay(day, zone.value), zone.value);
}

/** Adds a quick-add text's task to the current view's box, project or context, tokens applied. */
export function addTask(parsed: QuickAdd): string {
  const current = route.value;
  let attribute: Box = 'inbox';
  let project: string | null = null;
  let context: string | null = null;
  if (current.kind === 'box') attribute = BOX_VIEWS.find((view) => view.view === current.view)?.box ?? 'inbox';
  if (current.kind === 'project') project = projects.value.get(current.id)?.name ?? null;
  if (current.kind === 'context') context = contexts.value.get(current.id)?.name ?? null;
  let startDay: string | null = null;
  let boxToken: Box | null = null;
  const tags: string[] = [];
  let priority = 0;
  for (const { chip } of parsed.tokens) {
    if (chip.kind === 'project') project = chip.name;
    else if (chip.kind === 'context') context = chip.name;
    else if (chip.kind === 'tag') tags.push(chip.name);
    else if (chip.kind === 'priority') priority = chip.priority;
    else if (chip.kind === 'start') startDay = chip.day;
    else boxToken = chip.box;
  }
  if (startDay !== null) attribute = 'plan';
  if (boxToken !== null) attribute = boxToken;
  // Scheduled needs a start: a task added there without one starts today.
  if (attribute === 'plan' && startDay === null) startDay = today.value;
  const id = randomId();
  send({
    id,
    title: parsed.title,
    attribute,
    ...(project === null ? {} : { project }),
    ...(context === null ? {} : { context }),
    ...(tags.length === 0 ? {} : { tags }),
    ...(priority === 0 ? {} : { priority }),
    ...(startDay === null ? {} : { start_at: wireDay(startDay), all_day: true }),
  });
  return id;
}

/** Ticks or unticks a task; the server moves a repeating task instead of completing it. */
export function setCompleted(task: Task, done: boolean): void {
  send({ id: task.id, completed: done ? formatWireDate(Date.now(), zone.value) : null });
}

/** Saves fields edited in the details panel, checked against the version shown. */
export function edit(task: Task, fields: Omit<TaskBody, 'id' | 'if_rev'>): void {
  send({ ...fields, id: task.id, if_rev: task.rev });
}

export function setTrashed(task: Task, trashed: boolean): void {
  send({ id: task.id, trashed: trashed ? formatWireDate(Date.now(), zone.value) : null });
}

export function deleteTask(task: Task): void {
  send({ id: task.id, deleted: formatWireDate(Date.now(), zone.value) });
}
