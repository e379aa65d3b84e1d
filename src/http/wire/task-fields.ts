/**
 * Each field of a task on the wire, described once: the keys an answer carries and how they are
 * written, the keys a body may carry and how they are read. The table has a line for every field
 * of the record (TASK_FIELDS in domain/task.ts holds the rest of a field's description), so a new
 * field does not compile until it says what it is on the wire. The answer's shape (shapes.ts),
 * its rendering (render.ts), the body schema (schemas/task.ts) and the OpenAPI components are
 * derived from it.
 */
import { z } from 'zod';
import { LABEL_NAME_MAX } from '../../domain/label.js';
import {
  ATTRIBUTES,
  TASK_LIMITS,
  type Label,
  type LabelRef,
  type Reminder,
  type ReminderAnchor,
  type ReminderInput,
  type Task,
  type TaskInput,
} from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { dateField, readDateField } from '../schemas/dates.js';
import { text } from '../schemas/text.js';
import { DATE_TIME_EXPECTED, formatDateTime } from './dates.js';
import { WireError } from './errors.js';
import { jsonString } from './json.js';

/** `%Y-%m-%d %H:%M:%S %z`, the only date-time form the service writes. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

/** A date-time as written. */
export const wireDateTime = z
  .string()
  .regex(DATE_TIME)
  .meta({
    description: "A date-time in the account's zone: `YYYY-MM-DD HH:MM:SS +hhmm`.",
    examples: ['2026-11-21 09:30:00 +0800'],
  });

/** Every string of an answer arrives HTML-escaped (`&`, `<`, `>`, `'`, `"` as entities), and only those five. */
export const escaped = z.string();

/** A date-time as a JSON string; formatDateTime writes only digits, `-`, `:`, ` ` and `+`, which need no escaping. */
export function dateTime(us: Micros, zone: string): string {
  return `"${formatDateTime(us, zone)}"`;
}

export function dateTimeOrNull(us: Micros | null, zone: string): string {
  return us === null ? 'null' : dateTime(us, zone);
}

export function stringOrNull(value: string | null): string {
  return value === null ? 'null' : jsonString(value);
}

function stringArray(texts: readonly string[]): string {
  let json = '[';
  let separator = '';
  for (const item of texts) {
    json += separator + jsonString(item);
    separator = ',';
  }
  return `${json}]`;
}

/**
 * One field on the wire. `out`: the keys of an answer; `render`: them as JSON members
 * (`"key":value`), or null for a field no answer shows; `in`: the keys a body may carry, and
 * `read`: their parsed values as the part of a TaskInput they set (absent: nothing).
 */
interface WireTaskField<Out extends z.ZodRawShape, In extends z.ZodRawShape> {
  readonly out: Out;
  readonly render: ((task: Task, zone: string) => string) | null;
  readonly in: In;
  // A method, so that the table holds each field's own reader beside the others'.
  read(raw: z.output<z.ZodObject<In>>, zone: string): TaskInput;
}

function wireField<Out extends z.ZodRawShape, In extends z.ZodRawShape>(
  field: WireTaskField<Out, In>,
): WireTaskField<Out, In> {
  return field;
}

/** A field an answer shows and a body cannot set (the store's stamps). */
function shownOnly<Out extends z.ZodRawShape>(out: Out, render: (task: Task, zone: string) => string) {
  return wireField({ out, render, in: {}, read: () => ({}) });
}

/**
 * A date-time field: absent stays absent, null clears, text is read in the account's zone. A
 * computed key types as a string index; the casts say it is the one key `name`.
 */
function dateMember<N extends string>(name: N, value: (task: Task) => Micros | null) {
  return {
    out: { [name]: wireDateTime.nullable() } as { [K in N]: z.ZodNullable<typeof wireDateTime> },
    render: (task: Task, zone: string) => `"${name}":${dateTimeOrNull(value(task), zone)}`,
    in: { [name]: dateField } as { [K in N]: typeof dateField },
  };
}

const labelNameIn = text(0, LABEL_NAME_MAX).nullable().optional();
const labelIdIn = text(0, 64).nullable().optional();

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

function labelMembers(kind: 'project' | 'context', label: Label | null): string {
  return label === null
    ? `"${kind}":null,"${kind}_id":null`
    : `"${kind}":${jsonString(label.name)},"${kind}_id":${jsonString(label.id)}`;
}

function isPriority(value: number): value is Task['priority'] {
  return value === 0 || value === 1 || value === 2 || value === 3;
}

/** The name of a reminder's date on the wire, by anchor. */
const ANCHOR_FIELD: { readonly [A in ReminderAnchor]: 'start_at' | 'end_at' } = { start: 'start_at', end: 'end_at' };

const wireReminder = z
  .union([
    z.strictObject({ id: escaped, at: wireDateTime }),
    z.strictObject({ id: escaped, before: z.int().min(0), of: z.enum(['start_at', 'end_at']) }),
  ])
  .meta({ description: "A reminder: at a date-time, or `before` minutes before the task's `start_at` or `end_at`." });

/**
 * A reminder in a body: `at`, or `before` and `of`; the ranges (how many, how long before) are the
 * domain's rules (domain/reminders.ts), which every writer meets, not only this route.
 */
const reminderIn = z.object({
  id: text(1, 64).optional(),
  at: z.unknown().optional(),
  before: z.number().optional(),
  of: z.enum(['start_at', 'end_at']).optional(),
});

function readReminder(raw: z.output<typeof reminderIn>, index: number, zone: string): ReminderInput {
  const id = raw.id === undefined ? {} : { id: raw.id };
  if (raw.at !== undefined) {
    const at = readDateField(raw.at, `reminders[${index}].at`, zone);
    if (at === null || at === undefined) throw WireError.invalidParameter(`reminders[${index}].at`, DATE_TIME_EXPECTED);
    return { ...id, at };
  }
  if (raw.before === undefined || raw.of === undefined) {
    throw WireError.invalidParameter(`reminders[${index}]`, 'needs `at`, or `before` and `of`');
  }
  return { ...id, before: raw.before, of: raw.of === 'start_at' ? 'start' : 'end' };
}

function renderReminders(reminders: readonly Reminder[], zone: string): string {
  let json = '[';
  let separator = '';
  for (const reminder of reminders) {
    json +=
      separator +
      ('at' in reminder
        ? `{"id":${jsonString(reminder.id)},"at":${dateTime(reminder.at, zone)}}`
        : `{"id":${jsonString(reminder.id)},"before":${reminder.before},"of":"${ANCHOR_FIELD[reminder.of]}"}`);
    separator = ',';
  }
  return `${json}]`;
}

/** Every field of a task on the wire, in the order an answer writes them. */
export const TASK_WIRE = {
  id: wireField({
    out: { id: escaped },
    render: (task) => `"id":${jsonString(task.id)}`,
    in: { id: z.string().regex(TASK_LIMITS.idPattern).optional() },
    read: (raw) => (raw.id === undefined ? {} : { id: raw.id }),
  }),
  title: wireField({
    out: { title: escaped },
    render: (task) => `"title":${jsonString(task.title)}`,
    in: { title: text(1, TASK_LIMITS.titleMax).optional() },
    read: (raw) => (raw.title === undefined ? {} : { title: raw.title }),
  }),
  notes: wireField({
    out: { notes: escaped },
    render: (task) => `"notes":${jsonString(task.notes)}`,
    in: { notes: text(0, TASK_LIMITS.notesMax).nullable().optional() },
    read: (raw) => (raw.notes === undefined ? {} : { notes: raw.notes ?? '' }),
  }),
  attribute: wireField({
    out: { attribute: z.enum(ATTRIBUTES) },
    // One of a fixed set of plain words: nothing to escape.
    render: (task) => `"attribute":"${task.attribute}"`,
    in: { attribute: z.enum(ATTRIBUTES).optional() },
    read: (raw) => (raw.attribute === undefined ? {} : { attribute: raw.attribute }),
  }),
  allDay: wireField({
    out: { all_day: z.boolean() },
    render: (task) => `"all_day":${task.allDay ? 'true' : 'false'}`,
    in: { all_day: z.boolean().optional() },
    read: (raw) => (raw.all_day === undefined ? {} : { allDay: raw.all_day }),
  }),
  startAt: wireField({
    ...dateMember('start_at', (task) => task.startAt),
    read: (raw, zone) => {
      const value = readDateField(raw.start_at, 'start_at', zone);
      return value === undefined ? {} : { startAt: value };
    },
  }),
  endAt: wireField({
    ...dateMember('end_at', (task) => task.endAt),
    read: (raw, zone) => {
      const value = readDateField(raw.end_at, 'end_at', zone);
      return value === undefined ? {} : { endAt: value };
    },
  }),
  completed: wireField({
    ...dateMember('completed', (task) => task.completed),
    read: (raw, zone) => {
      const value = readDateField(raw.completed, 'completed', zone);
      return value === undefined ? {} : { completed: value };
    },
  }),
  trashed: wireField({
    ...dateMember('trashed', (task) => task.trashed),
    read: (raw, zone) => {
      const value = readDateField(raw.trashed, 'trashed', zone);
      return value === undefined ? {} : { trashed: value };
    },
  }),
  deleted: wireField({
    ...dateMember('deleted', (task) => task.deleted),
    read: (raw, zone) => {
      const value = readDateField(raw.deleted, 'deleted', zone);
      return value === undefined ? {} : { deleted: value };
    },
  }),
  project: wireField({
    out: { project: escaped.nullable(), project_id: escaped.nullable() },
    render: (task) => labelMembers('project', task.project),
    in: { project: labelNameIn, project_id: labelIdIn },
    read: (raw) => {
      const project = labelRef(raw.project, raw.project_id);
      return project === undefined ? {} : { project };
    },
  }),
  context: wireField({
    out: { context: escaped.nullable(), context_id: escaped.nullable() },
    render: (task) => labelMembers('context', task.context),
    in: { context: labelNameIn, context_id: labelIdIn },
    read: (raw) => {
      const context = labelRef(raw.context, raw.context_id);
      return context === undefined ? {} : { context };
    },
  }),
  tags: wireField({
    out: { tags: z.array(escaped) },
    render: (task) => `"tags":${stringArray(task.tags)}`,
    in: { tags: z.array(text(1, TASK_LIMITS.tagMax)).max(TASK_LIMITS.tagsMax).nullable().optional() },
    read: (raw) => (raw.tags === undefined ? {} : { tags: raw.tags ?? [] }),
  }),
  priority: wireField({
    out: { priority: z.int().min(0).max(3) },
    render: (task) => `"priority":${task.priority}`,
    in: { priority: z.int().min(0).max(3).optional() },
    read: (raw) => (raw.priority !== undefined && isPriority(raw.priority) ? { priority: raw.priority } : {}),
  }),
  repeater: wireField({
    out: { repeater: escaped.nullable() },
    render: (task) => `"repeater":${stringOrNull(task.repeater)}`,
    in: { repeater: text(0, 1000).nullable().optional() },
    read: (raw) => (raw.repeater === undefined ? {} : { repeater: raw.repeater === '' ? null : raw.repeater }),
  }),
  parentId: wireField({
    out: { parent_id: escaped.nullable() },
    render: (task) => `"parent_id":${stringOrNull(task.parentId)}`,
    in: { parent_id: z.string().regex(TASK_LIMITS.idPattern).or(z.literal('')).nullable().optional() },
    read: (raw) =>
      raw.parent_id === undefined
        ? {}
        : { parentId: raw.parent_id === '' || raw.parent_id === null ? null : raw.parent_id },
  }),
  sortOrder: wireField({
    out: { sort_order: z.int() },
    render: (task) => `"sort_order":${task.sortOrder}`,
    in: { sort_order: z.int().min(TASK_LIMITS.sortOrderMin).max(TASK_LIMITS.sortOrderMax).optional() },
    read: (raw) => (raw.sort_order === undefined ? {} : { sortOrder: raw.sort_order }),
  }),
  reminders: wireField({
    out: { reminders: z.array(wireReminder) },
    render: (task, zone) => `"reminders":${renderReminders(task.reminders, zone)}`,
    in: { reminders: z.array(reminderIn).nullable().optional() },
    read: (raw, zone) =>
      raw.reminders === undefined
        ? {}
        : { reminders: (raw.reminders ?? []).map((item, index) => readReminder(item, index, zone)) },
  }),
  // Derived by the service, stored for the due-reminder read: no client sets or sees it.
  reminderDue: wireField({ out: {}, render: null, in: {}, read: () => ({}) }),
  // Kept for the next iCalendar export only: the API neither shows nor takes it.
  icalExtras: wireField({ out: {}, render: null, in: {}, read: () => ({}) }),
  created: shownOnly({ created: wireDateTime }, (task, zone) => `"created":${dateTime(task.created, zone)}`),
  updated: shownOnly({ updated: wireDateTime }, (task, zone) => `"updated":${dateTime(task.updated, zone)}`),
  rev: shownOnly({ rev: z.int().positive() }, (task) => `"rev":${task.rev}`),
} satisfies { readonly [F in keyof Task]: WireTaskField<z.ZodRawShape, z.ZodRawShape> };

type Entry = (typeof TASK_WIRE)[keyof typeof TASK_WIRE];
type Intersection<U> = (U extends unknown ? (part: U) => void : never) extends (whole: infer I) => void ? I : never;

/** The keys of an answer's task, every field's together. */
export type TaskOutShape = Intersection<Entry['out']>;
/** The keys a task body may carry, every field's together. */
export type TaskInShape = Intersection<Entry['in']>;

const ENTRIES: readonly WireTaskField<z.ZodRawShape, z.ZodRawShape>[] = Object.values(TASK_WIRE);

// Object.assign types its result from its first two sources only: the shape holds every field's
// keys, which is what the intersection of their shapes says.
export const TASK_OUT_SHAPE = Object.assign({}, ...ENTRIES.map((entry) => entry.out)) as TaskOutShape;
export const TASK_IN_SHAPE = Object.assign({}, ...ENTRIES.map((entry) => entry.in)) as TaskInShape;

const RENDERERS = ENTRIES.flatMap((entry) => (entry.render === null ? [] : [entry.render]));

/** A task as the JSON text of an answer: every string HTML-escaped, every date-time in `zone`. */
export function renderTask(task: Task, zone: string): string {
  let json = '{';
  let separator = '';
  for (const render of RENDERERS) {
    json += separator + render(task, zone);
    separator = ',';
  }
  return `${json}}`;
}

/** The fields a parsed task body sets, read by each field's rule in the order of the table. */
export function readTaskFields(raw: z.output<z.ZodObject<TaskInShape>>, zone: string): TaskInput {
  let input: TaskInput = {};
  for (const entry of ENTRIES) input = { ...input, ...entry.read(raw, zone) };
  return input;
}
