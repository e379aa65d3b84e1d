import type { ContextDraft, ProjectDraft } from '../../domain/label.js';
import type { TaskDraft } from '../../domain/task.js';
import { CONTEXT_COLUMNS, PROJECT_COLUMNS, TASK_COLUMNS } from './rows.js';
import { storableText, storableTexts } from './text.js';

/*
 * Insert-or-update of one record, returning it as stored. `created` is set on insert only; the
 * last two parameters are the write's `updated` stamp and change number (see write-tx.ts). The
 * values functions give the parameters before those two, in column order.
 */

export const UPSERT_TASK = `
INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, start_at, end_at, completed, trashed, deleted,
                   project_id, project_name, context_id, context_name, tags, priority, repeater, created, updated, rev)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $19, $20)
ON CONFLICT (account_id, id) DO UPDATE SET
  title = EXCLUDED.title, notes = EXCLUDED.notes, attribute = EXCLUDED.attribute, all_day = EXCLUDED.all_day,
  start_at = EXCLUDED.start_at, end_at = EXCLUDED.end_at, completed = EXCLUDED.completed,
  trashed = EXCLUDED.trashed, deleted = EXCLUDED.deleted,
  project_id = EXCLUDED.project_id, project_name = EXCLUDED.project_name,
  context_id = EXCLUDED.context_id, context_name = EXCLUDED.context_name,
  tags = EXCLUDED.tags, priority = EXCLUDED.priority, repeater = EXCLUDED.repeater,
  updated = EXCLUDED.updated, rev = EXCLUDED.rev
RETURNING ${TASK_COLUMNS}`;

export const UPSERT_PROJECT = `
INSERT INTO projects (account_id, id, name, notes, archived, deleted, created, updated, rev)
VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)
ON CONFLICT (account_id, id) DO UPDATE SET
  name = EXCLUDED.name, notes = EXCLUDED.notes, archived = EXCLUDED.archived, deleted = EXCLUDED.deleted,
  updated = EXCLUDED.updated, rev = EXCLUDED.rev
RETURNING ${PROJECT_COLUMNS}`;

export const UPSERT_CONTEXT = `
INSERT INTO contexts (account_id, id, name, deleted, created, updated, rev)
VALUES ($1, $2, $3, $4, $5, $5, $6)
ON CONFLICT (account_id, id) DO UPDATE SET
  name = EXCLUDED.name, deleted = EXCLUDED.deleted, updated = EXCLUDED.updated, rev = EXCLUDED.rev
RETURNING ${CONTEXT_COLUMNS}`;

export function taskValues(accountId: number, draft: TaskDraft): unknown[] {
  return [
    accountId,
    storableText('id', draft.id),
    storableText('title', draft.title),
    storableText('notes', draft.notes),
    draft.attribute,
    draft.allDay,
    draft.startAt,
    draft.endAt,
    draft.completed,
    draft.trashed,
    draft.deleted,
    storableText('project_id', draft.project?.id ?? null),
    storableText('project', draft.project?.name ?? null),
    storableText('context_id', draft.context?.id ?? null),
    storableText('context', draft.context?.name ?? null),
    storableTexts('tags', draft.tags),
    draft.priority,
    storableText('repeater', draft.repeater),
  ];
}

export function projectValues(accountId: number, draft: ProjectDraft): unknown[] {
  return [
    accountId,
    storableText('id', draft.id),
    storableText('name', draft.name),
    storableText('notes', draft.notes),
    draft.archived,
    draft.deleted,
  ];
}

export function contextValues(accountId: number, draft: ContextDraft): unknown[] {
  return [accountId, storableText('id', draft.id), storableText('name', draft.name), draft.deleted];
}
