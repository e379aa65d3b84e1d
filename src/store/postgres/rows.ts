import type { Context, Project } from '../../domain/label.js';
import { ATTRIBUTES, type Attribute, type Label, type Priority, type Task } from '../../domain/task.js';
import { microsOrNull, numberFromBigint, type BigintText } from './values.js';

/*
 * The rows of the synced tables as pg returns them (see migrations.ts for the columns), and their
 * conversion into domain records. `bigint` columns arrive as text.
 */

export const TASK_COLUMNS =
  'id, title, notes, attribute, all_day, start_at, end_at, completed, trashed, deleted, project_id, project_name, ' +
  'context_id, context_name, tags, priority, repeater, created, updated, rev';

export interface TaskRow {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly attribute: string;
  readonly all_day: boolean;
  readonly start_at: BigintText | null;
  readonly end_at: BigintText | null;
  readonly completed: BigintText | null;
  readonly trashed: BigintText | null;
  readonly deleted: BigintText | null;
  readonly project_id: string | null;
  readonly project_name: string | null;
  readonly context_id: string | null;
  readonly context_name: string | null;
  readonly tags: readonly string[];
  readonly priority: number;
  readonly repeater: string | null;
  readonly created: BigintText;
  readonly updated: BigintText;
  readonly rev: BigintText;
}

export const PROJECT_COLUMNS = 'id, name, notes, archived, deleted, created, updated, rev';

export interface ProjectRow {
  readonly id: string;
  readonly name: string;
  readonly notes: string;
  readonly archived: BigintText | null;
  readonly deleted: BigintText | null;
  readonly created: BigintText;
  readonly updated: BigintText;
  readonly rev: BigintText;
}

export const CONTEXT_COLUMNS = 'id, name, deleted, created, updated, rev';

export interface ContextRow {
  readonly id: string;
  readonly name: string;
  readonly deleted: BigintText | null;
  readonly created: BigintText;
  readonly updated: BigintText;
  readonly rev: BigintText;
}

function isAttribute(value: string): value is Attribute {
  return ATTRIBUTES.some((attribute) => attribute === value);
}

function isPriority(value: number): value is Priority {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

function labelOf(id: string | null, name: string | null): Label | null {
  return id === null ? null : { id, name: name ?? '' };
}

export function taskFromRow(row: TaskRow): Task {
  // The schema's CHECK constraints keep these in range; the guards narrow the types.
  if (!isAttribute(row.attribute)) throw new Error(`stored task ${row.id} has attribute ${row.attribute}`);
  if (!isPriority(row.priority)) throw new Error(`stored task ${row.id} has priority ${row.priority}`);
  return {
    id: row.id,
    title: row.title,
    notes: row.notes,
    attribute: row.attribute,
    allDay: row.all_day,
    startAt: microsOrNull(row.start_at),
    endAt: microsOrNull(row.end_at),
    completed: microsOrNull(row.completed),
    trashed: microsOrNull(row.trashed),
    deleted: microsOrNull(row.deleted),
    project: labelOf(row.project_id, row.project_name),
    context: labelOf(row.context_id, row.context_name),
    tags: row.tags,
    priority: row.priority,
    repeater: row.repeater,
    created: numberFromBigint(row.created),
    updated: numberFromBigint(row.updated),
    rev: numberFromBigint(row.rev),
  };
}

export function projectFromRow(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    notes: row.notes,
    archived: microsOrNull(row.archived),
    deleted: microsOrNull(row.deleted),
    created: numberFromBigint(row.created),
    updated: numberFromBigint(row.updated),
    rev: numberFromBigint(row.rev),
  };
}

export function contextFromRow(row: ContextRow): Context {
  return {
    id: row.id,
    name: row.name,
    deleted: microsOrNull(row.deleted),
    created: numberFromBigint(row.created),
    updated: numberFromBigint(row.updated),
    rev: numberFromBigint(row.rev),
  };
}
