import { invalid } from './errors.js';
import {
  PROJECT_COLOR,
  type Context,
  type ContextDraft,
  type LabelInput,
  type Project,
  type ProjectDraft,
} from './label.js';

function pick<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/** Applies a client's change to a project, or creates one (a name is required then). */
export function mergeProject(existing: Project | undefined, input: LabelInput, newId: string): ProjectDraft {
  if (existing === undefined && input.name === undefined) throw invalid('name', 'required');
  if (typeof input.color === 'string' && !PROJECT_COLOR.test(input.color)) throw invalid('color', 'is #RRGGBB');
  return {
    id: existing?.id ?? input.id ?? newId,
    name: pick(input.name, existing?.name ?? ''),
    notes: pick(input.notes, existing?.notes ?? ''),
    archived: pick(input.archived, existing?.archived ?? null),
    deleted: pick(input.deleted, existing?.deleted ?? null),
    color: pick(input.color, existing?.color ?? null),
  };
}

/** Applies a client's change to a context, or creates one (a name is required then). */
export function mergeContext(existing: Context | undefined, input: LabelInput, newId: string): ContextDraft {
  if (existing === undefined && input.name === undefined) throw invalid('name', 'required');
  return {
    id: existing?.id ?? input.id ?? newId,
    name: pick(input.name, existing?.name ?? ''),
    deleted: pick(input.deleted, existing?.deleted ?? null),
  };
}

/** Whether a change to a label must be shown on its tasks: renamed, deleted or restored. */
export function touchesTasks(
  before: { readonly name: string; readonly deleted: number | null } | undefined,
  after: { readonly name: string; readonly deleted: number | null },
): boolean {
  if (before === undefined) return false;
  return before.name !== after.name || (before.deleted === null) !== (after.deleted === null);
}
