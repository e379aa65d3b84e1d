import type { ContextDraft, ProjectDraft } from './label.js';
import type { Label, TaskDraft } from './task.js';

function sameLabel(a: Label | null, b: Label | null): boolean {
  return a === b || (a !== null && b !== null && a.id === b.id && a.name === b.name);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/**
 * Whether writing `draft` over `stored` would change nothing stored (then it is not written): what
 * a client sees, and the iCalendar properties the next export writes.
 */
export function sameTask(stored: TaskDraft, draft: TaskDraft): boolean {
  return (
    stored.id === draft.id &&
    stored.title === draft.title &&
    stored.notes === draft.notes &&
    stored.attribute === draft.attribute &&
    stored.allDay === draft.allDay &&
    stored.startAt === draft.startAt &&
    stored.endAt === draft.endAt &&
    stored.completed === draft.completed &&
    stored.trashed === draft.trashed &&
    stored.deleted === draft.deleted &&
    sameLabel(stored.project, draft.project) &&
    sameLabel(stored.context, draft.context) &&
    sameList(stored.tags, draft.tags) &&
    stored.priority === draft.priority &&
    stored.repeater === draft.repeater &&
    stored.icalExtras === draft.icalExtras
  );
}

export function sameProject(stored: ProjectDraft, draft: ProjectDraft): boolean {
  return (
    stored.id === draft.id &&
    stored.name === draft.name &&
    stored.notes === draft.notes &&
    stored.archived === draft.archived &&
    stored.deleted === draft.deleted &&
    stored.color === draft.color
  );
}

export function sameContext(stored: ContextDraft, draft: ContextDraft): boolean {
  return stored.id === draft.id && stored.name === draft.name && stored.deleted === draft.deleted;
}
