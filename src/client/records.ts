/**
 * The records as the SDK hands them out and takes them in. Their types come from the server's own
 * zod schemas (type-only imports: nothing of the server is loaded): answers from
 * src/http/wire/shapes.ts with every date-time field a Date and every string unescaped, and
 * writes from the request schemas of src/http/schemas/ with a Date allowed where a date goes.
 */
import type { z } from 'zod';
import type { contextShape, projectShape } from '../http/schemas/label.js';
import type { settingsShape } from '../http/schemas/settings.js';
import type { taskShape } from '../http/schemas/task.js';
import type { WireContext, WireProject, WireSettings, WireTask } from '../http/wire/shapes.js';
import { formatWireDate, parseWireDate } from './dates.js';
import { unescapeHtml } from './escape.js';

/** The date-time fields of each answer; the test suite checks them against the real answers. */
export const DATE_FIELDS = {
  task: ['start_at', 'end_at', 'completed', 'trashed', 'deleted', 'created', 'updated'],
  project: ['archived', 'deleted', 'created', 'updated'],
  context: ['deleted', 'created', 'updated'],
  settings: ['created', 'updated'],
} as const satisfies {
  task: readonly (keyof WireTask)[];
  project: readonly (keyof WireProject)[];
  context: readonly (keyof WireContext)[];
  settings: readonly (keyof WireSettings)[];
};

/** An answer as the SDK hands it out: its date-time fields as Dates (strings unescaped, same type). */
export type Decoded<Wire, DateField extends keyof Wire> = {
  readonly [K in keyof Wire]: K extends DateField ? (null extends Wire[K] ? Date | null : Date) : Wire[K];
};

export type Task = Decoded<WireTask, (typeof DATE_FIELDS.task)[number]>;
export type Project = Decoded<WireProject, (typeof DATE_FIELDS.project)[number]>;
export type Context = Decoded<WireContext, (typeof DATE_FIELDS.context)[number]>;
export type Settings = Decoded<WireSettings, (typeof DATE_FIELDS.settings)[number]>;

/** A date on the way out: a Date (sent in the contract's form), `YYYY-MM-DD` (a calendar date), or null to clear. */
export type DateInput = Date | string | null;

type Encodable<Input, DateField extends keyof Input> = {
  [K in keyof Input]: K extends DateField ? Input[K] | Date : Input[K];
};

/** A task to create (title needed) or update (id needed; only the fields given change). Text raw. */
export type TaskWrite = Encodable<
  z.input<typeof taskShape>,
  'start_at' | 'end_at' | 'completed' | 'trashed' | 'deleted'
>;
export type ProjectWrite = Encodable<z.input<typeof projectShape>, 'archived' | 'deleted'>;
export type ContextWrite = Encodable<z.input<typeof contextShape>, 'deleted'>;
export type SettingsWrite = z.input<typeof settingsShape>;

export type SyncKind = 'tasks' | 'projects' | 'contexts';

export interface RecordOf {
  tasks: Task;
  projects: Project;
  contexts: Context;
}

export interface WriteOf {
  tasks: TaskWrite;
  projects: ProjectWrite;
  contexts: ContextWrite;
}

export const DATE_FIELDS_OF: { readonly [K in SyncKind]: readonly string[] } = {
  tasks: DATE_FIELDS.task,
  projects: DATE_FIELDS.project,
  contexts: DATE_FIELDS.context,
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every string in the value unescaped once, however deep (an import report's records, say). */
function unescapeValue(value: unknown): unknown {
  if (typeof value === 'string') return unescapeHtml(value);
  if (Array.isArray(value)) return value.map(unescapeValue);
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unescapeValue(item)]));
  return value;
}

/** One record of an answer: its date-time fields parsed, every string unescaped once. */
export function decodeRecord<T>(wire: unknown, dateFields: readonly string[]): T {
  if (!isRecord(wire)) throw new TypeError('the service answered something other than a record');
  const decoded: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(wire)) {
    decoded[field] =
      dateFields.includes(field) && typeof value === 'string' ? parseWireDate(value) : unescapeValue(value);
  }
  // The service's answers have the shapes of src/http/wire/shapes.ts and account-shapes.ts (the
  // OpenAPI tests hold it to them), and the loop above turns each into T as Decoded describes it.
  return decoded as T;
}

/** A write as the service reads it: Dates in the contract's form in `zone`, text raw as given. */
export function encodeWrite(write: object, zone: string): Record<string, unknown> {
  const encoded: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(write)) {
    if (value === undefined) continue;
    encoded[field] = value instanceof Date ? formatWireDate(value, zone) : value;
  }
  return encoded;
}
