/**
 * The app's way to /v1: a thin adapter over the SDK (`src/client/`), which makes every call,
 * unescapes strings once on the way in and parses the wire's dates. Here its records become the
 * app's (dates as epoch milliseconds, camelCase), in this one place, and its failures the two
 * the app tells apart: the service refused (`TaskServiceError`, with the retcode) or cannot be
 * reached (`UnavailableError`: offline).
 */
import {
  AccountError,
  parseWireDate,
  BOXES,
  type Box,
  TaskServiceClient,
  TaskServiceError,
  type Context as SdkContext,
  type Project as SdkProject,
  type Settings as SdkSettings,
  type Task as SdkTask,
  type TaskWrite,
} from '../../src/client/index.js';

export { TaskServiceError } from '../../src/client/index.js';

export { BOXES, type Box };

export interface Task {
  readonly id: string;
  readonly title: string;
  readonly notes: string;
  readonly attribute: Box;
  readonly allDay: boolean;
  readonly startAt: number | null;
  readonly endAt: number | null;
  readonly completed: number | null;
  readonly trashed: number | null;
  readonly deleted: number | null;
  readonly project: string | null;
  readonly context: string | null;
  readonly tags: readonly string[];
  readonly priority: number;
  readonly repeater: string | null;
  // The three below are absent from copies kept before them (read as null, 0 and none).
  /** The parent task's id: a subtask (API.md 4.4); null for a top-level task. */
  readonly parentId?: string | null;
  /** Order among siblings and in lists, then `created` (API.md 4.4). */
  readonly sortOrder?: number;
  readonly reminders?: readonly Reminder[];
  readonly created: number;
  readonly updated: number;
  readonly rev: number;
}

/**
 * A reminder (API.md 4.5): at an instant (epoch ms), or minutes before the task's start or
 * deadline. `id` is the server's; a reminder not yet sent has none.
 */
export type Reminder =
  | { readonly id?: string; readonly at: number }
  | { readonly id?: string; readonly before: number; readonly of: 'start_at' | 'end_at' };

/** A reminder as sent: an absolute one's time as the wire writes it. */
export type ReminderBody =
  | { readonly id?: string; readonly at: string }
  | { readonly id?: string; readonly before: number; readonly of: 'start_at' | 'end_at' };

/** A project or a context. */
export interface Label {
  readonly id: string;
  readonly name: string;
  readonly deleted: number | null;
  readonly rev: number;
  /** Projects only, as are `archived`; absent from contexts and from copies kept before them. */
  readonly color?: string | null;
  readonly archived?: number | null;
}

/** A project or context as sent: only the fields present change. */
export interface LabelBody {
  readonly id?: string;
  readonly name?: string;
  readonly color?: string | null;
  readonly archived?: string | null;
  readonly deleted?: string;
}

export interface Settings {
  readonly id: string;
  readonly username: string;
  readonly nickname: string;
  readonly timezone: string;
  readonly weekStart: number;
}

/** A task as sent: raw text, wire dates; only the fields present change (API.md section 4.1). */
export interface TaskBody {
  readonly id: string;
  readonly title?: string;
  readonly notes?: string;
  readonly attribute?: Box;
  readonly all_day?: boolean;
  readonly start_at?: string | null;
  readonly end_at?: string | null;
  readonly completed?: string | null;
  readonly trashed?: string | null;
  readonly deleted?: string | null;
  readonly project?: string | null;
  readonly context?: string | null;
  readonly tags?: readonly string[];
  readonly priority?: number;
  readonly repeater?: string | null;
  readonly parent_id?: string | null;
  readonly sort_order?: number;
  readonly reminders?: readonly ReminderBody[];
  readonly if_rev?: number;
}

export interface SettingsBody {
  readonly nickname?: string;
  readonly timezone?: string;
  readonly week_start?: number;
}

export type SyncedKind = 'tasks' | 'projects' | 'contexts';

export interface Page<T> {
  readonly entries: readonly T[];
  readonly cursor: string;
  readonly hasMore: boolean;
}

/** The server cannot be reached or is not serving (network gone, E502, E503): try again later. */
export class UnavailableError extends Error {}

export type RecordOf<K extends SyncedKind> = K extends 'tasks' ? Task : Label;

const millis = (date: Date | null): number | null => (date === null ? null : date.getTime());

function taskOf(task: SdkTask): Task {
  return {
    id: task.id,
    title: task.title,
    notes: task.notes,
    attribute: task.attribute,
    allDay: task.all_day,
    startAt: millis(task.start_at),
    endAt: millis(task.end_at),
    completed: millis(task.completed),
    trashed: millis(task.trashed),
    deleted: millis(task.deleted),
    project: task.project,
    context: task.context,
    tags: task.tags,
    priority: task.priority,
    repeater: task.repeater,
    parentId: task.parent_id,
    sortOrder: task.sort_order,
    reminders: task.reminders.map((reminder) =>
      'at' in reminder ? { id: reminder.id, at: parseWireDate(reminder.at).getTime() } : reminder,
    ),
    created: task.created.getTime(),
    updated: task.updated.getTime(),
    rev: task.rev,
  };
}

function labelOf(label: SdkProject | SdkContext): Label {
  const base = { id: label.id, name: label.name, deleted: millis(label.deleted), rev: label.rev };
  return 'archived' in label ? { ...base, color: label.color, archived: millis(label.archived) } : base;
}

function settingsOf(settings: SdkSettings): Settings {
  return {
    id: settings.id,
    username: settings.username,
    nickname: settings.nickname,
    timezone: settings.timezone,
    weekStart: settings.week_start,
  };
}

function writeOf({ tags, reminders, ...fields }: TaskBody): TaskWrite {
  return {
    ...fields,
    ...(tags === undefined ? {} : { tags: [...tags] }),
    ...(reminders === undefined ? {} : { reminders: [...reminders] }),
  };
}

/** fetch as the app wants it: never from the HTTP cache, and no answer at all means offline. */
export async function fetchFresh(input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, { ...init, cache: 'no-store' });
  } catch (error) {
    throw new UnavailableError(error instanceof Error ? error.message : 'network error');
  }
}

/** The SDK's refusals as the app reads them: E502, E503 and answers not from the service mean offline. */
export async function answerOf<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof TaskServiceError && (error.retcode === null || error.status === 502 || error.status === 503))
      throw new UnavailableError(`HTTP ${error.status}`);
    throw error;
  }
}

/**
 * Whether an account call (the SDK's AccountClient over fetchFresh) failed for want of the server:
 * no answer, E502 or E503, or an answer that is not the account endpoints' own.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof UnavailableError) return true;
  return error instanceof AccountError && (error.code === null || error.status === 502 || error.status === 503);
}

export interface ApiClient {
  list<K extends SyncedKind>(
    kind: K,
    query: { readonly cursor?: string; readonly limit?: number },
  ): Promise<Page<RecordOf<K>>>;
  getTask(id: string): Promise<Task>;
  /** Sent with the queued change's own Idempotency-Key, so sending it again applies it once. */
  postTask(body: TaskBody, idempotencyKey: string): Promise<Task>;
  getSettings(): Promise<Settings>;
  postSettings(body: SettingsBody): Promise<Settings>;
  /** Creates or changes a project or context at once (not queued: the app says if it failed). */
  saveLabel(kind: 'projects' | 'contexts', body: LabelBody): Promise<Label>;
  /**
   * Resolves when a task changed after `cursor`, or `seconds` later with nothing (API.md 4.6);
   * what changed is left for the next sync round to read. `signal` ends the wait early.
   */
  waitForTasks(cursor: string, seconds: number, signal: AbortSignal): Promise<void>;
}

/** `token` is asked for on every call, so a new sign-in needs no new client. */
export function createApi(token: () => string | null): ApiClient {
  // One attempt per call: the app's queue sends again, and says "offline" meanwhile. Dates go
  // out already in the wire's form, so the client's zone is never used.
  const client = (): TaskServiceClient =>
    new TaskServiceClient({ baseUrl: location.origin, token: token() ?? '', fetch: fetchFresh, retry: { retries: 0 } });

  type Query = { readonly cursor?: string; readonly limit?: number };
  function list<K extends SyncedKind>(kind: K, query: Query): Promise<Page<RecordOf<K>>>;
  async function list(kind: SyncedKind, query: Query): Promise<Page<Task | Label>> {
    if (kind === 'tasks') {
      const page = await answerOf(client().tasks.list(query));
      return { entries: page.entries.map(taskOf), cursor: page.cursor, hasMore: page.has_more };
    }
    const page = await answerOf(client()[kind].list(query));
    return { entries: page.entries.map(labelOf), cursor: page.cursor, hasMore: page.has_more };
  }

  return {
    list,
    async waitForTasks(cursor, seconds, signal) {
      const waiting = new TaskServiceClient({
        baseUrl: location.origin,
        token: token() ?? '',
        fetch: async (input, init) => fetchFresh(input, { ...init, signal }),
        retry: { retries: 0 },
      });
      // One entry is enough to know that something changed; the round reads them all.
      await answerOf(waiting.tasks.list({ cursor, wait: seconds, limit: 1 }));
    },
    async getTask(id) {
      return taskOf(await answerOf(client().tasks.get(id)));
    },
    async postTask(body, idempotencyKey) {
      return taskOf(await answerOf(client().tasks.save(writeOf(body), { idempotencyKey })));
    },
    async getSettings() {
      return settingsOf(await answerOf(client().settings()));
    },
    async postSettings(body) {
      return settingsOf(await answerOf(client().updateSettings(body)));
    },
    async saveLabel(kind, { color, archived, ...body }) {
      if (kind === 'contexts') return labelOf(await answerOf(client().contexts.save(body)));
      const project = {
        ...body,
        ...(color === undefined ? {} : { color }),
        ...(archived === undefined ? {} : { archived }),
      };
      return labelOf(await answerOf(client().projects.save(project)));
    },
  };
}
