import type { Context, ContextDraft, Project, ProjectDraft } from '../../domain/label.js';
import { ATTRIBUTES, type Attribute, type Label, type Priority, type Task, type TaskDraft } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';

/*
 * Rows as SQLite returns them and the parameters the upserts bind, with the mapping to and from
 * the domain records. Values SQLite cannot hold as such (booleans, tag lists, labels) are encoded
 * here and nowhere else.
 */

/** The stamps a put gives a record: the account's next change number and `updated` time. */
export interface Stamp {
  readonly rev: number;
  readonly updated: Micros;
}

// Records are read as raw rows (arrays, in select-list order): building an object per row costs
// better-sqlite3 about twice as much, which a listing of thousands of rows would feel. Each select
// list sits next to the tuple type it produces; the mappers destructure the tuple by name.

/** The select list of a task, in the order of TaskTuple. */
export const TASK_COLUMNS =
  'id, title, notes, attribute, all_day, start_at, end_at, completed, trashed, deleted, ' +
  'project_id, project_name, context_id, context_name, tags, priority, repeater, created, updated, rev';

export type TaskTuple = readonly [
  id: string,
  title: string,
  notes: string,
  attribute: string,
  allDay: number,
  startAt: number | null,
  endAt: number | null,
  completed: number | null,
  trashed: number | null,
  deleted: number | null,
  projectId: string | null,
  projectName: string | null,
  contextId: string | null,
  contextName: string | null,
  tags: string,
  priority: number,
  repeater: string | null,
  created: number,
  updated: number,
  rev: number,
];

/** The select list of a project, in the order of ProjectTuple. */
export const PROJECT_COLUMNS = 'id, name, notes, archived, deleted, created, updated, rev';

export type ProjectTuple = readonly [
  id: string,
  name: string,
  notes: string,
  archived: number | null,
  deleted: number | null,
  created: number,
  updated: number,
  rev: number,
];

/** The select list of a context, in the order of ContextTuple. */
export const CONTEXT_COLUMNS = 'id, name, deleted, created, updated, rev';

export type ContextTuple = readonly [
  id: string,
  name: string,
  deleted: number | null,
  created: number,
  updated: number,
  rev: number,
];

/** What an upsert binds besides the stamps; `updated` also serves as `created` for a new row. */
interface StampedParams {
  readonly account_id: number;
  readonly id: string;
  readonly updated: number;
  readonly rev: number;
}

export interface TaskParams extends StampedParams {
  readonly title: string;
  readonly notes: string;
  readonly attribute: string;
  readonly all_day: number;
  readonly start_at: number | null;
  readonly end_at: number | null;
  readonly completed: number | null;
  readonly trashed: number | null;
  readonly deleted: number | null;
  readonly project_id: string | null;
  readonly project_name: string | null;
  readonly context_id: string | null;
  readonly context_name: string | null;
  readonly tags: string;
  readonly priority: number;
  readonly repeater: string | null;
}

export interface ProjectParams extends StampedParams {
  readonly name: string;
  readonly notes: string;
  readonly archived: number | null;
  readonly deleted: number | null;
}

export interface ContextParams extends StampedParams {
  readonly name: string;
  readonly deleted: number | null;
}

export function taskFromTuple(row: TaskTuple): Task {
  const [
    id,
    title,
    notes,
    attribute,
    allDay,
    startAt,
    endAt,
    completed,
    trashed,
    deleted,
    projectId,
    projectName,
    contextId,
    contextName,
    tags,
    priority,
    repeater,
    created,
    updated,
    rev,
  ] = row;
  return {
    id,
    title,
    notes,
    attribute: attributeFromColumn(attribute),
    allDay: allDay === 1,
    startAt,
    endAt,
    completed,
    trashed,
    deleted,
    project: labelFromColumns(projectId, projectName),
    context: labelFromColumns(contextId, contextName),
    tags: tagsFromColumn(tags),
    priority: priorityFromColumn(priority),
    repeater,
    created,
    updated,
    rev,
  };
}

export function taskParams(accountId: number, draft: TaskDraft, stamp: Stamp): TaskParams {
  return {
    account_id: accountId,
    id: draft.id,
    title: draft.title,
    notes: draft.notes,
    attribute: draft.attribute,
    all_day: draft.allDay ? 1 : 0,
    start_at: draft.startAt,
    end_at: draft.endAt,
    completed: draft.completed,
    trashed: draft.trashed,
    deleted: draft.deleted,
    project_id: draft.project?.id ?? null,
    project_name: draft.project?.name ?? null,
    context_id: draft.context?.id ?? null,
    context_name: draft.context?.name ?? null,
    tags: JSON.stringify(draft.tags),
    priority: draft.priority,
    repeater: draft.repeater,
    updated: stamp.updated,
    rev: stamp.rev,
  };
}

export function projectFromTuple(row: ProjectTuple): Project {
  const [id, name, notes, archived, deleted, created, updated, rev] = row;
  return { id, name, notes, archived, deleted, created, updated, rev };
}

export function projectParams(accountId: number, draft: ProjectDraft, stamp: Stamp): ProjectParams {
  return {
    account_id: accountId,
    id: draft.id,
    name: draft.name,
    notes: draft.notes,
    archived: draft.archived,
    deleted: draft.deleted,
    updated: stamp.updated,
    rev: stamp.rev,
  };
}

export function contextFromTuple(row: ContextTuple): Context {
  const [id, name, deleted, created, updated, rev] = row;
  return { id, name, deleted, created, updated, rev };
}

export function contextParams(accountId: number, draft: ContextDraft, stamp: Stamp): ContextParams {
  return {
    account_id: accountId,
    id: draft.id,
    name: draft.name,
    deleted: draft.deleted,
    updated: stamp.updated,
    rev: stamp.rev,
  };
}

// The schema's CHECK constraints keep these columns valid; the guards narrow the types without
// trusting a cast, and name the column if the file was edited by hand.

function isAttribute(value: string): value is Attribute {
  return ATTRIBUTES.some((attribute) => attribute === value);
}

function attributeFromColumn(value: string): Attribute {
  if (!isAttribute(value)) throw new Error(`tasks.attribute holds an unknown value: ${value}`);
  return value;
}

function priorityFromColumn(value: number): Priority {
  if (value === 0 || value === 1 || value === 2 || value === 3) return value;
  throw new Error(`tasks.priority holds an unknown value: ${value}`);
}

function labelFromColumns(id: string | null, name: string | null): Label | null {
  return id === null || name === null ? null : { id, name };
}

function tagsFromColumn(text: string): readonly string[] {
  // The common case, no tags, skips the JSON parser.
  if (text === '[]') return [];
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((tag): tag is string => typeof tag === 'string')) {
    throw new Error('tasks.tags is not a JSON array of strings');
  }
  return parsed;
}
