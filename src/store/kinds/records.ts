import { byKind, type DraftsByKind, type NamedKind, type RecordsByKind, type SyncKind } from '../../domain/sync.js';
import {
  ATTRIBUTES,
  REMINDER_ANCHORS,
  type Attribute,
  type Label,
  type Priority,
  type Reminder,
  type ReminderAnchor,
} from '../../domain/task.js';
import { addedColumn, column, type Columns, type DraftRowOf, type RowOf } from './columns.js';

/**
 * How one synced kind is stored, described once: its table, its columns in order, how a draft
 * becomes a row and a row a record, and the unique index on live names. Each engine derives its
 * select list, upsert, decoder, purge and unique-violation mapping from this.
 */
export interface KindStorage<K extends SyncKind, C extends Columns> {
  readonly kind: K;
  readonly table: string;
  readonly columns: C;
  // Methods, not function properties: the engines hold every kind as KindStorage<K, Columns>, and
  // a row they decode by the column types is the RowOf<C> that fromRow of the actual C expects.
  toRow(draft: DraftsByKind[K]): DraftRowOf<C>;
  fromRow(row: RowOf<C>): RecordsByKind[K];
  /** The unique index that keeps live names unique, for kinds that have names. */
  readonly liveNameIndex: K extends NamedKind ? string : null;
  /**
   * The text columns whose UTF-8 bytes count toward the account's storage (issue #16), as the
   * usage triggers of both engines count them; the store suite holds the three to agreement.
   */
  readonly countedText: readonly (keyof C & string)[];
}

const TASK_COLUMNS = {
  id: column('text', 'id'),
  title: column('text', 'title'),
  notes: column('text', 'notes'),
  attribute: column('text', 'attribute'),
  all_day: column('bool', 'all_day'),
  start_at: column('microsOrNull', 'start_at'),
  end_at: column('microsOrNull', 'end_at'),
  completed: column('microsOrNull', 'completed'),
  trashed: column('microsOrNull', 'trashed'),
  deleted: column('microsOrNull', 'deleted'),
  project_id: column('textOrNull', 'project_id'),
  project_name: column('textOrNull', 'project'),
  context_id: column('textOrNull', 'context_id'),
  context_name: column('textOrNull', 'context'),
  tags: column('textList', 'tags'),
  priority: column('int', 'priority'),
  repeater: column('textOrNull', 'repeater'),
  created: column('micros', 'created'),
  updated: column('micros', 'updated'),
  rev: column('int', 'rev'),
  // Migration 6 (issue #14); last, so that a write outcome kept before it is a shorter row.
  ical_extras: addedColumn('text', 'ical_extras', ''),
  // Migration 9 (SQLite), 10 (PostgreSQL): subtasks, order and reminders (issue #22).
  parent_id: addedColumn('textOrNull', 'parent_id', null),
  sort_order: addedColumn('int', 'sort_order', 0),
  reminders: addedColumn('text', 'reminders', '[]'),
  reminder_due: addedColumn('microsOrNull', 'reminders', null),
} as const;

const PROJECT_COLUMNS = {
  id: column('text', 'id'),
  name: column('text', 'name'),
  notes: column('text', 'notes'),
  archived: column('microsOrNull', 'archived'),
  deleted: column('microsOrNull', 'deleted'),
  created: column('micros', 'created'),
  updated: column('micros', 'updated'),
  rev: column('int', 'rev'),
  // Migration 7 (SQLite), 8 (PostgreSQL): CalDAV's calendar-color (issue #23); last, as ical_extras.
  color: addedColumn('textOrNull', 'color', null),
} as const;

const CONTEXT_COLUMNS = {
  id: column('text', 'id'),
  name: column('text', 'name'),
  deleted: column('microsOrNull', 'deleted'),
  created: column('micros', 'created'),
  updated: column('micros', 'updated'),
  rev: column('int', 'rev'),
} as const;

// The schema's CHECK constraints keep these columns valid; the guards narrow the types without
// trusting a cast, and name the column if the data was edited by hand.

function isAttribute(value: string): value is Attribute {
  return ATTRIBUTES.some((attribute) => attribute === value);
}

function attributeOf(value: string): Attribute {
  if (!isAttribute(value)) throw new Error(`tasks.attribute holds an unknown value: ${value}`);
  return value;
}

function priorityOf(value: number): Priority {
  if (value === 0 || value === 1 || value === 2 || value === 3) return value;
  throw new Error(`tasks.priority holds an unknown value: ${value}`);
}

/** A task carries a label when it names the label's id; a name lost by hand reads as empty. */
function labelOf(id: string | null, name: string | null): Label | null {
  return id === null ? null : { id, name: name ?? '' };
}

/** A task's reminders as one JSON text: `[{"id","at"} | {"id","before","of"}]`, `of` the domain's anchor. */
function remindersText(reminders: readonly Reminder[]): string {
  return JSON.stringify(reminders);
}

function isAnchor(value: unknown): value is ReminderAnchor {
  return REMINDER_ANCHORS.some((anchor) => anchor === value);
}

function reminderOf(value: unknown): Reminder {
  if (typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string') {
    if ('at' in value && Number.isSafeInteger(value.at) && typeof value.at === 'number')
      return { id: value.id, at: value.at };
    if ('before' in value && typeof value.before === 'number' && 'of' in value && isAnchor(value.of)) {
      return { id: value.id, before: value.before, of: value.of };
    }
  }
  throw new Error(`tasks.reminders holds an unknown reminder: ${JSON.stringify(value)}`);
}

function remindersOfText(text: string): Reminder[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed)) throw new Error('tasks.reminders holds no JSON array');
  return parsed.map(reminderOf);
}

const TASKS: KindStorage<'task', typeof TASK_COLUMNS> = {
  kind: 'task',
  table: 'tasks',
  columns: TASK_COLUMNS,
  liveNameIndex: null,
  countedText: ['title', 'notes', 'ical_extras'],
  toRow: (draft) => ({
    id: draft.id,
    title: draft.title,
    notes: draft.notes,
    attribute: draft.attribute,
    all_day: draft.allDay,
    start_at: draft.startAt,
    end_at: draft.endAt,
    completed: draft.completed,
    trashed: draft.trashed,
    deleted: draft.deleted,
    project_id: draft.project?.id ?? null,
    project_name: draft.project?.name ?? null,
    context_id: draft.context?.id ?? null,
    context_name: draft.context?.name ?? null,
    tags: draft.tags,
    priority: draft.priority,
    repeater: draft.repeater,
    ical_extras: draft.icalExtras,
    parent_id: draft.parentId,
    sort_order: draft.sortOrder,
    reminders: remindersText(draft.reminders),
    reminder_due: draft.reminderDue,
  }),
  fromRow: (row) => ({
    id: row.id,
    title: row.title,
    notes: row.notes,
    attribute: attributeOf(row.attribute),
    allDay: row.all_day,
    startAt: row.start_at,
    endAt: row.end_at,
    completed: row.completed,
    trashed: row.trashed,
    deleted: row.deleted,
    project: labelOf(row.project_id, row.project_name),
    context: labelOf(row.context_id, row.context_name),
    tags: row.tags,
    priority: priorityOf(row.priority),
    repeater: row.repeater,
    parentId: row.parent_id,
    sortOrder: row.sort_order,
    reminders: remindersOfText(row.reminders),
    reminderDue: row.reminder_due,
    icalExtras: row.ical_extras,
    created: row.created,
    updated: row.updated,
    rev: row.rev,
  }),
};

const PROJECTS: KindStorage<'project', typeof PROJECT_COLUMNS> = {
  kind: 'project',
  table: 'projects',
  columns: PROJECT_COLUMNS,
  liveNameIndex: 'projects_live_name',
  countedText: ['name', 'notes'],
  toRow: (draft) => ({
    id: draft.id,
    name: draft.name,
    notes: draft.notes,
    archived: draft.archived,
    deleted: draft.deleted,
    color: draft.color,
  }),
  fromRow: (row) => ({ ...row }),
};

const CONTEXTS: KindStorage<'context', typeof CONTEXT_COLUMNS> = {
  kind: 'context',
  table: 'contexts',
  columns: CONTEXT_COLUMNS,
  liveNameIndex: 'contexts_live_name',
  countedText: ['name'],
  toRow: (draft) => ({ id: draft.id, name: draft.name, deleted: draft.deleted }),
  fromRow: (row) => ({ ...row }),
};

/** Every synced kind's storage, by kind: adding a kind to RecordsByKind makes this fail to compile. */
export const KIND_STORAGE: { readonly [K in SyncKind]: KindStorage<K, Columns> } = {
  task: TASKS,
  project: PROJECTS,
  context: CONTEXTS,
};

/** The column names of a kind, in select-list order. */
function columnNames(storage: { readonly columns: Columns }): readonly string[] {
  return Object.keys(storage.columns);
}

/** The column of a task that points at a project or context. */
export const LABEL_ID_COLUMN: { readonly [K in NamedKind]: string } = {
  project: 'project_id',
  context: 'context_id',
};

/** The column of a task that holds the name of its project or context, as the task shows it. */
export const LABEL_NAME_COLUMN: { readonly [K in NamedKind]: string } = {
  project: 'project_name',
  context: 'context_name',
};

/** A stored record as the values of its kind's columns, in order. */
function valuesOf<K extends SyncKind, C extends Columns>(
  storage: KindStorage<K, C>,
  record: DraftsByKind[K] & { readonly created: number; readonly updated: number; readonly rev: number },
): unknown[] {
  const row: Readonly<Record<string, unknown>> = {
    ...storage.toRow(record),
    created: record.created,
    updated: record.updated,
    rev: record.rev,
  };
  return columnNames(storage).map((name) => row[name]);
}

type ValuesOf = { readonly [K in SyncKind]: (record: RecordsByKind[K]) => unknown[] };
export const COLUMN_VALUES = byKind<ValuesOf>(
  <K extends SyncKind>(kind: K) =>
    (record: RecordsByKind[K]) =>
      valuesOf(KIND_STORAGE[kind], record),
);

/** The stamps a put gives a record; `created` is the first put's `updated`. */
export interface RecordStamps {
  readonly created: number;
  readonly updated: number;
  readonly rev: number;
}

/**
 * A put's record as the store keeps it, made without reading it back: the draft as a row, with its
 * stamps, read as a record (so a label without a name reads as it would from the table).
 */
export function storedRecord<K extends SyncKind>(
  kind: K,
  draft: DraftsByKind[K],
  stamps: RecordStamps,
): RecordsByKind[K] {
  const storage: KindStorage<K, Columns> = KIND_STORAGE[kind];
  return storage.fromRow({ ...storage.toRow(draft), ...stamps });
}

/** The bytes a record counts toward its account's storage: its counted texts in UTF-8. */
export function countedBytes<K extends SyncKind>(kind: K, draft: DraftsByKind[K]): number {
  const storage: KindStorage<K, Columns> = KIND_STORAGE[kind];
  const row = storage.toRow(draft);
  let bytes = 0;
  for (const name of storage.countedText) {
    const value = row[name];
    if (typeof value === 'string') bytes += Buffer.byteLength(value, 'utf8');
  }
  return bytes;
}
