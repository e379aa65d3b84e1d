import type { RecordsByKind } from '../store.js';
import {
  CONTEXT_COLUMNS,
  contextFromTuple,
  PROJECT_COLUMNS,
  projectFromTuple,
  TASK_COLUMNS,
  taskFromTuple,
  type ContextTuple,
  type ProjectTuple,
  type TaskTuple,
} from './rows.js';

/**
 * How one kind of synced record is stored: its table, and the select list whose raw rows
 * (statements in `.raw()` mode) `fromRow` maps.
 */
export interface RecordTable<Row, Rec> {
  readonly name: 'tasks' | 'projects' | 'contexts';
  readonly columns: string;
  readonly fromRow: (row: Row) => Rec;
}

export const TASKS: RecordTable<TaskTuple, RecordsByKind['task']> = {
  name: 'tasks',
  columns: TASK_COLUMNS,
  fromRow: taskFromTuple,
};

export const PROJECTS: RecordTable<ProjectTuple, RecordsByKind['project']> = {
  name: 'projects',
  columns: PROJECT_COLUMNS,
  fromRow: projectFromTuple,
};

export const CONTEXTS: RecordTable<ContextTuple, RecordsByKind['context']> = {
  name: 'contexts',
  columns: CONTEXT_COLUMNS,
  fromRow: contextFromTuple,
};

/**
 * Insert or update by (account_id, id), answering the stored row. A new row takes `updated` as
 * `created`; an existing one keeps its `created`.
 */
export const UPSERT_TASK = `
INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, start_at, end_at, completed, trashed, deleted,
                   project_id, project_name, context_id, context_name, tags, priority, repeater, created, updated, rev)
VALUES (@account_id, @id, @title, @notes, @attribute, @all_day, @start_at, @end_at, @completed, @trashed, @deleted,
        @project_id, @project_name, @context_id, @context_name, @tags, @priority, @repeater, @updated, @updated, @rev)
ON CONFLICT (account_id, id) DO UPDATE SET
  title = excluded.title, notes = excluded.notes, attribute = excluded.attribute, all_day = excluded.all_day,
  start_at = excluded.start_at, end_at = excluded.end_at, completed = excluded.completed,
  trashed = excluded.trashed, deleted = excluded.deleted,
  project_id = excluded.project_id, project_name = excluded.project_name,
  context_id = excluded.context_id, context_name = excluded.context_name,
  tags = excluded.tags, priority = excluded.priority, repeater = excluded.repeater,
  updated = excluded.updated, rev = excluded.rev
RETURNING ${TASKS.columns}`;

export const UPSERT_PROJECT = `
INSERT INTO projects (account_id, id, name, notes, archived, deleted, created, updated, rev)
VALUES (@account_id, @id, @name, @notes, @archived, @deleted, @updated, @updated, @rev)
ON CONFLICT (account_id, id) DO UPDATE SET
  name = excluded.name, notes = excluded.notes, archived = excluded.archived, deleted = excluded.deleted,
  updated = excluded.updated, rev = excluded.rev
RETURNING ${PROJECTS.columns}`;

export const UPSERT_CONTEXT = `
INSERT INTO contexts (account_id, id, name, deleted, created, updated, rev)
VALUES (@account_id, @id, @name, @deleted, @updated, @updated, @rev)
ON CONFLICT (account_id, id) DO UPDATE SET
  name = excluded.name, deleted = excluded.deleted, updated = excluded.updated, rev = excluded.rev
RETURNING ${CONTEXTS.columns}`;
