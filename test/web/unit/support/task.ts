import type { Task } from '../../../../web/src/api.ts';

/** A task as the web app holds it: an Inbox task named by its id, with `fields` over it. */
export function webTask(id: string, fields: Partial<Task> = {}): Task {
  return {
    id,
    title: id,
    notes: '',
    attribute: 'inbox',
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
    created: 0,
    updated: 0,
    rev: 1,
    ...fields,
  };
}
