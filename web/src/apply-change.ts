/** What a change will make of a task, shown at once while the change waits for the server. */
import { parseWireDate } from '../../src/client/index.js';
import type { Task, TaskBody } from './api.ts';

function instantOrNull(text: string | null): number | null {
  return text === null ? null : parseWireDate(text).getTime();
}

function emptyLabel(name: string | null | undefined): string | null | undefined {
  return name === '' ? null : name;
}

/** `body` applied to `task` (undefined: a new task), the way the server would apply it. */
export function applyChange(task: Task | undefined, body: TaskBody, now: number): Task {
  const base: Task = task ?? {
    id: body.id,
    title: '',
    notes: '',
    attribute: body.attribute ?? (body.start_at ? 'plan' : 'inbox'),
    allDay: false,
    startAt: null,
    endAt: null,
    completed: null,
    trashed: null,
    deleted: null,
    project: null,
    context: null,
    tags: [],
    priority: 0,
    repeater: null,
    created: now,
    updated: now,
    rev: 0,
  };
  const project = emptyLabel(body.project);
  const context = emptyLabel(body.context);
  return {
    ...base,
    ...(body.title === undefined ? {} : { title: body.title }),
    ...(body.notes === undefined ? {} : { notes: body.notes }),
    ...(body.attribute === undefined ? {} : { attribute: body.attribute }),
    ...(body.all_day === undefined ? {} : { allDay: body.all_day }),
    ...(body.start_at === undefined ? {} : { startAt: instantOrNull(body.start_at) }),
    ...(body.end_at === undefined ? {} : { endAt: instantOrNull(body.end_at) }),
    ...(body.completed === undefined ? {} : { completed: instantOrNull(body.completed) }),
    ...(body.trashed === undefined ? {} : { trashed: instantOrNull(body.trashed) }),
    ...(body.deleted === undefined ? {} : { deleted: instantOrNull(body.deleted) }),
    ...(project === undefined ? {} : { project }),
    ...(context === undefined ? {} : { context }),
    ...(body.tags === undefined ? {} : { tags: [...new Set(body.tags)] }),
    ...(body.priority === undefined ? {} : { priority: body.priority }),
    ...(body.repeater === undefined ? {} : { repeater: body.repeater }),
    ...(body.parent_id === undefined ? {} : { parentId: body.parent_id === '' ? null : body.parent_id }),
    ...(body.sort_order === undefined ? {} : { sortOrder: body.sort_order }),
    ...(body.reminders === undefined
      ? {}
      : {
          reminders: body.reminders.map((reminder) =>
            'at' in reminder ? { ...reminder, at: parseWireDate(reminder.at).getTime() } : reminder,
          ),
        }),
    updated: now,
  };
}
