import { z } from 'zod';
import { ATTRIBUTES, TASK_LIMITS, type LabelRef, type Priority, type TaskInput } from '../../domain/task.js';
import { LABEL_NAME_MAX } from '../../domain/label.js';
import { dateField, readDateField } from './dates.js';
import { firstIssue } from './issues.js';
import { text } from './text.js';
import { readOneOrMany } from './one-or-many.js';

const labelName = text(0, LABEL_NAME_MAX).nullable().optional();
const labelId = text(0, 64).nullable().optional();

/** The shape of one task in a POST body; unknown fields are dropped (clients send whole tasks back). */
export const taskShape = z.object({
  id: z.string().regex(TASK_LIMITS.idPattern).optional(),
  title: text(1, TASK_LIMITS.titleMax).optional(),
  notes: text(0, TASK_LIMITS.notesMax).nullable().optional(),
  attribute: z.enum(ATTRIBUTES).optional(),
  all_day: z.boolean().optional(),
  start_at: dateField,
  end_at: dateField,
  completed: dateField,
  trashed: dateField,
  deleted: dateField,
  project: labelName,
  project_id: labelId,
  context: labelName,
  context_id: labelId,
  tags: z.array(text(1, TASK_LIMITS.tagMax)).max(TASK_LIMITS.tagsMax).nullable().optional(),
  priority: z.int().min(0).max(3).optional(),
  repeater: text(0, 1000).nullable().optional(),
  if_rev: z.int().min(0).optional(),
});

function isPriority(value: number): value is Priority {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/**
 * A project or context as a task body names it. `""` is kept as a name (it means none): with an
 * id beside it, the service tells a cleared name from an unchanged one.
 */
function labelRef(name: string | null | undefined, id: string | null | undefined): LabelRef | undefined {
  const hasId = id !== undefined && id !== null && id !== '';
  if (name !== undefined && name !== null) return hasId ? { name, id } : { name };
  if (hasId) return { id };
  if (name === undefined && id === undefined) return undefined;
  return null;
}

/** Reads one task object of a POST body into typed values, dates in the account's zone. */
function readTask(body: unknown, zone: string): TaskInput {
  const parsed = taskShape.safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error);
  const raw = parsed.data;
  const priority = raw.priority;
  const project = labelRef(raw.project, raw.project_id);
  const context = labelRef(raw.context, raw.context_id);
  const input: { -readonly [K in keyof TaskInput]: TaskInput[K] } = {};
  if (raw.id !== undefined) input.id = raw.id;
  if (raw.title !== undefined) input.title = raw.title;
  if (raw.notes !== undefined) input.notes = raw.notes ?? '';
  if (raw.attribute !== undefined) input.attribute = raw.attribute;
  if (raw.all_day !== undefined) input.allDay = raw.all_day;
  for (const [field, key] of [
    ['start_at', 'startAt'],
    ['end_at', 'endAt'],
    ['completed', 'completed'],
    ['trashed', 'trashed'],
    ['deleted', 'deleted'],
  ] as const) {
    const value = readDateField(raw[field], field, zone);
    if (value !== undefined) input[key] = value;
  }
  if (project !== undefined) input.project = project;
  if (context !== undefined) input.context = context;
  if (raw.tags !== undefined) input.tags = raw.tags ?? [];
  if (priority !== undefined && isPriority(priority)) input.priority = priority;
  if (raw.repeater !== undefined) input.repeater = raw.repeater === '' ? null : raw.repeater;
  if (raw.if_rev !== undefined) input.ifRev = raw.if_rev;
  return input;
}

/** The body of POST /v1/tasks: one task or an array of at most 1000. */
export function readTaskBody(body: unknown, zone: string): { inputs: TaskInput[]; asArray: boolean } {
  return readOneOrMany(body, (item) => readTask(item, zone));
}
