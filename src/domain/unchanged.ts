import type { ContextDraft, ProjectDraft } from './label.js';
import { sameField, TASK_FIELD_NAMES, type TaskDraft } from './task.js';

/**
 * Whether writing `draft` over `stored` would change nothing stored (then it is not written): every
 * field by its rule of TASK_FIELDS.
 */
export function sameTask(stored: TaskDraft, draft: TaskDraft): boolean {
  return TASK_FIELD_NAMES.every((name) => sameField(name, stored, draft));
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
