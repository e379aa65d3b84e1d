import { z } from 'zod';
import type { Account } from '../../domain/account.js';
import type { PortableAccount, PortableTask } from '../../domain/portable.js';
import { ATTRIBUTES, type LabelRef, type Priority } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { isoOfMicros, microsOfIso } from './iso-micros.js';

/**
 * The lossless JSON of one account (`task-service export --format json`): settings, projects,
 * contexts and tasks with every field a client can set, and the iCalendar properties a task kept
 * from an import (`ical_extras`), tombstones left out. `created`, `updated` and `rev` are not in
 * it: the store that imports it stamps its own.
 *
 * Versioned: `version` says which shape follows. A release reads every version it ever wrote
 * (an older file is read by that version's reader into the same records), and refuses a newer
 * one, saying so. Version 1 had no `ical_extras`: its tasks keep none. Version 2 had no
 * `parent_id`, `sort_order` nor `reminders`: its tasks are top-level, unordered, without any.
 */
export const ACCOUNT_JSON_FORMAT = 'task-service account';
export const ACCOUNT_JSON_VERSION = 3;

const instant = z.string().transform((text, context): Micros => {
  const micros = microsOfIso(text);
  if (micros === undefined) {
    context.addIssue({ code: 'custom', message: 'not an ISO 8601 UTC instant (2026-01-31T09:00:00.000000Z)' });
    return z.NEVER;
  }
  return micros;
});

const projectV1 = z.strictObject({
  id: z.string(),
  name: z.string(),
  notes: z.string(),
  archived: instant.nullable(),
});

const contextV1 = z.strictObject({ id: z.string(), name: z.string() });

const taskV1 = z.strictObject({
  id: z.string(),
  title: z.string(),
  notes: z.string(),
  attribute: z.enum(ATTRIBUTES),
  all_day: z.boolean(),
  start_at: instant.nullable(),
  end_at: instant.nullable(),
  completed: instant.nullable(),
  trashed: instant.nullable(),
  project_id: z.string().nullable(),
  context_id: z.string().nullable(),
  tags: z.array(z.string()),
  priority: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  repeater: z.string().nullable(),
});

const documentV1 = z.strictObject({
  format: z.literal(ACCOUNT_JSON_FORMAT),
  version: z.literal(1),
  exported: z.string(),
  username: z.string(),
  settings: z.strictObject({
    nickname: z.string(),
    timezone: z.string(),
    language: z.string(),
    week_start: z.number().int(),
  }),
  projects: z.array(projectV1),
  contexts: z.array(contextV1),
  tasks: z.array(taskV1),
});

/** Version 2: a task has `ical_extras`, its kept iCalendar content lines (`""` for none). */
const taskV2 = taskV1.extend({ ical_extras: z.string() });

const documentV2 = documentV1.extend({ version: z.literal(2), tasks: z.array(taskV2) });

const reminderV3 = z.union([
  z.strictObject({ id: z.string(), at: instant }),
  z.strictObject({ id: z.string(), before: z.number(), of: z.enum(['start', 'end']) }),
]);

/** Version 3: a task has `parent_id`, `sort_order` and `reminders` (issue #22). */
const taskV3 = taskV2.extend({
  parent_id: z.string().nullable(),
  sort_order: z.number().int(),
  reminders: z.array(reminderV3),
});

const documentV3 = documentV1.extend({ version: z.literal(3), tasks: z.array(taskV3) });

const header = z.looseObject({ format: z.literal(ACCOUNT_JSON_FORMAT), version: z.number().int() });

function labelRef(id: string | null): LabelRef {
  return id === null ? null : { id };
}

function refId(ref: LabelRef): string | null {
  if (ref === null) return null;
  if (!('id' in ref) || ref.id === undefined) throw new Error('a task of our JSON names its project and context by id');
  return ref.id;
}

function nullableIso(value: Micros | null): string | null {
  return value === null ? null : isoOfMicros(value);
}

export function writeAccountJson(account: Account, data: PortableAccount, exported: Micros): string {
  const document: z.input<typeof documentV3> = {
    format: ACCOUNT_JSON_FORMAT,
    version: ACCOUNT_JSON_VERSION,
    exported: isoOfMicros(exported),
    username: account.username,
    settings: {
      nickname: account.nickname,
      timezone: account.timezone,
      language: account.language,
      week_start: account.weekStart,
    },
    projects: data.projects.map((project) => ({ ...project, archived: nullableIso(project.archived) })),
    contexts: data.contexts.map((context) => ({ ...context })),
    tasks: data.tasks.map((task) => ({
      id: task.id,
      title: task.title,
      notes: task.notes,
      attribute: task.attribute,
      all_day: task.allDay,
      start_at: nullableIso(task.startAt),
      end_at: nullableIso(task.endAt),
      completed: nullableIso(task.completed),
      trashed: nullableIso(task.trashed),
      project_id: refId(task.project),
      context_id: refId(task.context),
      tags: [...task.tags],
      priority: task.priority,
      repeater: task.repeater,
      ical_extras: task.icalExtras,
      parent_id: task.parentId,
      sort_order: task.sortOrder,
      reminders: task.reminders.map((reminder) =>
        'at' in reminder ? { id: reminder.id, at: isoOfMicros(reminder.at) } : { ...reminder },
      ),
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Why a file is not an account JSON this release reads, said so the operator can act on it. */
export class FormatError extends Error {
  override name = 'FormatError';
}

function describeIssues(error: z.ZodError): string {
  const first = error.issues[0];
  if (first === undefined) return 'not an account export';
  const where = first.path.length === 0 ? 'the document' : first.path.join('.');
  return `${where}: ${first.message}`;
}

type TaskV1 = z.output<typeof taskV1>;
/** What every version has alike: settings, projects and contexts. */
type AccountParts = Pick<z.output<typeof documentV1>, 'settings' | 'projects' | 'contexts'>;

type ReminderV3 = z.output<typeof reminderV3>;

/** A task of any version; one of version 1 keeps no iCalendar properties, one before 3 no subtasks. */
function taskOf(
  task: TaskV1 & {
    readonly ical_extras?: string;
    readonly parent_id?: string | null;
    readonly sort_order?: number;
    readonly reminders?: readonly ReminderV3[];
  },
): PortableTask {
  return {
    id: task.id,
    title: task.title,
    notes: task.notes,
    attribute: task.attribute,
    allDay: task.all_day,
    startAt: task.start_at,
    endAt: task.end_at,
    completed: task.completed,
    trashed: task.trashed,
    project: labelRef(task.project_id),
    context: labelRef(task.context_id),
    tags: task.tags,
    priority: task.priority satisfies Priority,
    repeater: task.repeater,
    icalExtras: task.ical_extras ?? '',
    parentId: task.parent_id ?? null,
    sortOrder: task.sort_order ?? 0,
    reminders: task.reminders ?? [],
  };
}

function accountOf(document: AccountParts, tasks: readonly PortableTask[]): PortableAccount {
  return {
    settings: {
      nickname: document.settings.nickname,
      timezone: document.settings.timezone,
      language: document.settings.language,
      weekStart: document.settings.week_start,
    },
    projects: document.projects,
    contexts: document.contexts,
    tasks,
    unmapped: [],
  };
}

function readV1(value: unknown): PortableAccount {
  const parsed = documentV1.safeParse(value);
  if (!parsed.success) throw new FormatError(describeIssues(parsed.error));
  return accountOf(parsed.data, parsed.data.tasks.map(taskOf));
}

function readV2(value: unknown): PortableAccount {
  const parsed = documentV2.safeParse(value);
  if (!parsed.success) throw new FormatError(describeIssues(parsed.error));
  return accountOf(parsed.data, parsed.data.tasks.map(taskOf));
}

function readV3(value: unknown): PortableAccount {
  const parsed = documentV3.safeParse(value);
  if (!parsed.success) throw new FormatError(describeIssues(parsed.error));
  return accountOf(parsed.data, parsed.data.tasks.map(taskOf));
}

/** The readers of every version ever written, by version. */
const READERS: Readonly<Record<number, (value: unknown) => PortableAccount>> = { 1: readV1, 2: readV2, 3: readV3 };

export function readAccountJson(text: string): PortableAccount {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormatError('not JSON');
  }
  const head = header.safeParse(value);
  if (!head.success) throw new FormatError(`not a task-service account export (${describeIssues(head.error)})`);
  const reader = READERS[head.data.version];
  if (reader === undefined) {
    throw new FormatError(
      `version ${head.data.version} of the account export is newer than this release reads (${ACCOUNT_JSON_VERSION}): ` +
        'import it with a newer release',
    );
  }
  return reader(value);
}
