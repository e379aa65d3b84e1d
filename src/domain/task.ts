import type { Micros } from './time.js';

export const ATTRIBUTES = ['inbox', 'next', 'plan', 'noplan', 'waiting'] as const;
export type Attribute = (typeof ATTRIBUTES)[number];

export type Priority = 0 | 1 | 2 | 3;

/** A reference to a project or context, kept on the task with its current name. */
export interface Label {
  readonly id: string;
  readonly name: string;
}

/** The date a relative reminder counts back from. */
export const REMINDER_ANCHORS = ['start', 'end'] as const;
export type ReminderAnchor = (typeof REMINDER_ANCHORS)[number];

/**
 * A reminder (contract section 4.5): at an instant, or some minutes before the task's start or
 * deadline (of the current occurrence, for a repeating task). `id` is the server's.
 */
export type Reminder =
  | { readonly id: string; readonly at: Micros }
  | { readonly id: string; readonly before: number; readonly of: ReminderAnchor };

/** A reminder as a client sends it: its id when it sends back one it read, else none yet. */
export type ReminderInput =
  | { readonly id?: string; readonly at: Micros }
  | { readonly id?: string; readonly before: number; readonly of: ReminderAnchor };

/** A task as stored: every field set. Text is raw (never escaped). */
export interface Task {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly attribute: Attribute;
  readonly allDay: boolean;
  readonly startAt: Micros | null;
  readonly endAt: Micros | null;
  readonly completed: Micros | null;
  readonly trashed: Micros | null;
  readonly deleted: Micros | null;
  readonly project: Label | null;
  readonly context: Label | null;
  readonly tags: readonly string[];
  readonly priority: Priority;
  readonly repeater: string | null;
  /** The task this one is a subtask of (contract section 4.4); always in its parent's project. */
  readonly parentId: string | null;
  /** Order among siblings and in lists: ascending, then by `created`. */
  readonly sortOrder: number;
  readonly reminders: readonly Reminder[];
  /**
   * When the next of its reminders fires, from the time of the task's last change (so one that
   * fell due before it is not planned again); null when none will (done, trashed, deleted, or no
   * reminder ahead). Derived by mergeTask, stored and indexed so that what falls due is one read.
   */
  readonly reminderDue: Micros | null;
  /**
   * The properties of an imported iCalendar VTODO that no field takes (another app's `X-…`, `GEO`,
   * `URL`…), as their unfolded content lines, each ended by CRLF; `''` for none. Kept for the next
   * iCalendar export: the API neither shows nor takes it (domain/ical-extras.ts).
   */
  readonly icalExtras: string;
  readonly created: Micros;
  readonly updated: Micros;
  readonly rev: number;
}

/** A task about to be written: the store stamps `created` (on insert), `updated` and `rev`. */
export type TaskDraft = Omit<Task, 'created' | 'updated' | 'rev'>;

/**
 * How a request names a project or context: by name (created when missing), by id, or both (a
 * whole task sent back: whichever of the two the client changed counts).
 */
export type LabelRef = { readonly name: string; readonly id?: string } | { readonly id: string } | null;

/**
 * A task as a client sent it, already parsed into typed values: absent fields stay unchanged.
 * Every field of the record, but its labels given by reference (found or made by the use case),
 * and `ifRev`, the change number the client last saw. `icalExtras` is set by imports only: a
 * request of the API has no field for it, so its changes keep it.
 */
export type TaskInput = {
  readonly [F in Exclude<keyof TaskDraft, 'project' | 'context' | 'reminders' | 'reminderDue'>]?: TaskDraft[F];
} & {
  readonly project?: LabelRef;
  readonly context?: LabelRef;
  readonly reminders?: readonly ReminderInput[];
  readonly ifRev?: number;
};

/** A new task's fields, before the client's are applied (its id and title the client's). */
export const NEW_TASK: Omit<TaskDraft, 'id'> = {
  title: '',
  notes: '',
  attribute: 'inbox',
  allDay: false,
  startAt: null,
  endAt: null,
  completed: null,
  trashed: null,
  deleted: null,
  project: null,
  context: null,
  tags: [],
  priority: 0,
  repeater: null,
  parentId: null,
  sortOrder: 0,
  reminders: [],
  reminderDue: null,
  icalExtras: '',
};

/**
 * What the service knows of each field of a task, described once (the wire's part is in
 * http/wire/task-fields.ts, the storage's in store/kinds/records.ts): when two values are the
 * same, so that an import writes nothing that would not change (every field counts: what a
 * client sees, and the iCalendar lines the next export writes), and the iCalendar properties it
 * maps to, which service/formats/vtodo.ts writes from the field rather than keeping them.
 */
export interface TaskFieldRule<V> {
  readonly same: (stored: V, draft: V) => boolean;
  readonly ical: readonly string[];
}

function exact<V>(stored: V, draft: V): boolean {
  return stored === draft;
}

function sameLabel(stored: Label | null, draft: Label | null): boolean {
  return (
    stored === draft || (stored !== null && draft !== null && stored.id === draft.id && stored.name === draft.name)
  );
}

function sameList(stored: readonly string[], draft: readonly string[]): boolean {
  return stored.length === draft.length && stored.every((item, index) => item === draft[index]);
}

function sameReminder(stored: Reminder, draft: Reminder): boolean {
  if ('at' in stored) return 'at' in draft && stored.id === draft.id && stored.at === draft.at;
  return 'before' in draft && stored.id === draft.id && stored.before === draft.before && stored.of === draft.of;
}

function sameReminders(stored: readonly Reminder[], draft: readonly Reminder[]): boolean {
  return (
    stored.length === draft.length &&
    stored.every((item, index) => {
      const other = draft[index];
      return other !== undefined && sameReminder(item, other);
    })
  );
}

/** Derived from the others: it changes only with them, or with time, which is no change to import. */
function derived(): boolean {
  return true;
}

function field<V>(same: (stored: V, draft: V) => boolean, ...ical: string[]): TaskFieldRule<V> {
  return { same, ical };
}

export const TASK_FIELDS: { readonly [F in keyof TaskDraft]: TaskFieldRule<TaskDraft[F]> } = {
  id: field(exact, 'uid'),
  title: field(exact, 'summary'),
  notes: field(exact, 'description'),
  attribute: field(exact),
  allDay: field(exact),
  startAt: field(exact, 'dtstart'),
  endAt: field(exact, 'due'),
  completed: field(exact, 'completed', 'status', 'percent-complete'),
  trashed: field(exact),
  deleted: field(exact),
  project: field(sameLabel),
  context: field(sameLabel),
  tags: field(sameList, 'categories'),
  priority: field(exact, 'priority'),
  repeater: field(exact, 'rrule'),
  parentId: field(exact),
  sortOrder: field(exact),
  reminders: field(sameReminders),
  reminderDue: field(derived),
  icalExtras: field(exact),
};

export type TaskField = keyof TaskDraft;

/** Whether one field of two tasks holds the same value, by its rule. */
export function sameField<F extends TaskField>(
  name: F,
  stored: Pick<TaskDraft, F>,
  draft: Pick<TaskDraft, F>,
): boolean {
  const rule: TaskFieldRule<TaskDraft[F]> = TASK_FIELDS[name];
  return rule.same(stored[name], draft[name]);
}

/** The fields of a task, in the order of TASK_FIELDS. */
export const TASK_FIELD_NAMES: readonly TaskField[] = fieldNames(TASK_FIELDS);

function fieldNames(table: { readonly [F in TaskField]: unknown }): TaskField[] {
  const names: TaskField[] = [];
  for (const name in table) if (isTaskField(name, table)) names.push(name);
  return names;
}

function isTaskField(name: string, table: { readonly [F in TaskField]: unknown }): name is TaskField {
  return Object.hasOwn(table, name);
}

export const TASK_LIMITS = {
  idPattern: /^[A-Za-z0-9_\-+/=.]{1,64}$/,
  titleMax: 1000,
  notesMax: 100_000,
  tagsMax: 50,
  tagMax: 100,
  /** The kept iCalendar properties of one task, in characters: a few dozen lines of another app. */
  icalExtrasMax: 32_768,
  remindersMax: 10,
  /** A relative reminder comes at most four weeks before its date, in minutes. */
  reminderBeforeMax: 40_320,
  /** sort_order is a 32-bit integer on both engines. */
  sortOrderMin: -2_147_483_648,
  sortOrderMax: 2_147_483_647,
} as const;
