import { z } from 'zod';
import { LABEL_NAME_MAX, PROJECT_COLOR, type LabelInput } from '../../domain/label.js';
import { TASK_LIMITS } from '../../domain/task.js';
import { firstIssue } from './issues.js';
import { text } from './text.js';
import { readOneOrMany } from './one-or-many.js';
import { dateField, readDateField } from './dates.js';

export const projectShape = z.object({
  id: z.string().regex(TASK_LIMITS.idPattern).optional(),
  name: text(1, LABEL_NAME_MAX).optional(),
  notes: text(0, TASK_LIMITS.notesMax).nullable().optional(),
  archived: dateField,
  /** `#RRGGBB` (or `#RRGGBBAA`, as CalDAV clients write it); null for none. */
  color: z.string().regex(PROJECT_COLOR, 'is #RRGGBB').nullable().optional(),
  deleted: dateField,
  if_rev: z.int().min(0).optional(),
});

export const contextShape = projectShape.omit({ notes: true, archived: true, color: true });

function readLabel(body: unknown, zone: string, withProjectFields: boolean): LabelInput {
  const parsed = (withProjectFields ? projectShape : contextShape).safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error);
  const raw: z.infer<typeof projectShape> = parsed.data;
  const input: { -readonly [K in keyof LabelInput]: LabelInput[K] } = {};
  if (raw.id !== undefined) input.id = raw.id;
  if (raw.name !== undefined) input.name = raw.name;
  if (raw.notes !== undefined) input.notes = raw.notes ?? '';
  if (raw.color !== undefined) input.color = raw.color;
  const archived = readDateField(raw.archived, 'archived', zone);
  if (archived !== undefined) input.archived = archived;
  const deleted = readDateField(raw.deleted, 'deleted', zone);
  if (deleted !== undefined) input.deleted = deleted;
  if (raw.if_rev !== undefined) input.ifRev = raw.if_rev;
  return input;
}

export function readProjectBody(body: unknown, zone: string): { inputs: LabelInput[]; asArray: boolean } {
  return readOneOrMany(body, (item) => readLabel(item, zone, true));
}

export function readContextBody(body: unknown, zone: string): { inputs: LabelInput[]; asArray: boolean } {
  return readOneOrMany(body, (item) => readLabel(item, zone, false));
}
