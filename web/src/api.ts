/**
 * The app's only way to the server: one typed client for every call to /v1 (API.md). Strings are
 * unescaped once on the way in and sent back raw; dates travel as `YYYY-MM-DD HH:MM:SS +hhmm`
 * and live here as epoch milliseconds.
 */
import { parseWireDate, parseWireDateOrNull } from './dates.ts';
import { unescapeText } from './text.ts';

export type Box = 'inbox' | 'next' | 'plan' | 'noplan' | 'waiting';
export const BOXES: readonly Box[] = ['inbox', 'next', 'plan', 'noplan', 'waiting'];

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
  readonly created: number;
  readonly updated: number;
  readonly rev: number;
}

/** A project or a context. */
export interface Label {
  readonly id: string;
  readonly name: string;
  readonly deleted: number | null;
  readonly rev: number;
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

/** The service answered with its error body (`retcode`, `retmsg`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly retcode: string,
    readonly retmsg: string,
  ) {
    super(`${retcode}: ${retmsg}`);
  }
}

/** The server cannot be reached or is not serving (network gone, E502, E503): try again later. */
export class UnavailableError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(record: Json, field: string): string {
  const value = record[field];
  if (typeof value !== 'string') throw new Error(`expected text in ${field}`);
  return unescapeText(value);
}

function textOrNull(record: Json, field: string): string | null {
  return record[field] === null || record[field] === undefined ? null : text(record, field);
}

function integer(record: Json, field: string): number {
  const value = record[field];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`expected an integer in ${field}`);
  return value;
}

function instant(record: Json, field: string): number {
  return parseWireDate(text(record, field));
}

function instantOrNull(record: Json, field: string): number | null {
  return parseWireDateOrNull(textOrNull(record, field));
}

function boxOf(value: unknown): Box {
  const box = BOXES.find((candidate) => candidate === value);
  if (box === undefined) throw new Error(`unknown box ${String(value)}`);
  return box;
}

export function readTask(record: unknown): Task {
  if (!isObject(record)) throw new Error('expected a task');
  const tags = record['tags'];
  return {
    id: text(record, 'id'),
    title: text(record, 'title'),
    notes: text(record, 'notes'),
    attribute: boxOf(record['attribute']),
    allDay: record['all_day'] === true,
    startAt: instantOrNull(record, 'start_at'),
    endAt: instantOrNull(record, 'end_at'),
    completed: instantOrNull(record, 'completed'),
    trashed: instantOrNull(record, 'trashed'),
    deleted: instantOrNull(record, 'deleted'),
    project: textOrNull(record, 'project'),
    context: textOrNull(record, 'context'),
    tags: Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string').map(unescapeText) : [],
    priority: integer(record, 'priority'),
    repeater: textOrNull(record, 'repeater'),
    created: instant(record, 'created'),
    updated: instant(record, 'updated'),
    rev: integer(record, 'rev'),
  };
}

export function readLabel(record: unknown): Label {
  if (!isObject(record)) throw new Error('expected a project or context');
  return {
    id: text(record, 'id'),
    name: text(record, 'name'),
    deleted: instantOrNull(record, 'deleted'),
    rev: integer(record, 'rev'),
  };
}

function readSettings(record: unknown): Settings {
  if (!isObject(record)) throw new Error('expected settings');
  return {
    id: text(record, 'id'),
    username: text(record, 'username'),
    nickname: text(record, 'nickname'),
    timezone: text(record, 'timezone'),
    weekStart: integer(record, 'week_start'),
  };
}

function readPage<T>(body: unknown, read: (record: unknown) => T): Page<T> {
  if (!isObject(body) || !Array.isArray(body['entries'])) throw new Error('expected a list answer');
  const cursor = body['cursor'];
  if (typeof cursor !== 'string') throw new Error('expected a cursor');
  return { entries: body['entries'].map(read), cursor, hasMore: body['has_more'] === true };
}

export interface ApiClient {
  list<K extends SyncedKind>(
    kind: K,
    query: { readonly cursor?: string; readonly limit?: number },
  ): Promise<Page<RecordOf<K>>>;
  getTask(id: string): Promise<Task>;
  postTask(body: TaskBody, idempotencyKey: string): Promise<Task>;
  getSettings(): Promise<Settings>;
  postSettings(body: SettingsBody): Promise<Settings>;
}

export type RecordOf<K extends SyncedKind> = K extends 'tasks' ? Task : Label;

/** `token` is asked for on every call, so a new sign-in needs no new client. */
export function createApi(token: () => string | null): ApiClient {
  async function call(
    path: string,
    init: { method: 'GET' | 'POST'; body?: unknown; idempotencyKey?: string },
  ): Promise<unknown> {
    const headers: Record<string, string> = { Authorization: `Bearer ${token() ?? ''}` };
    if (init.body !== undefined) headers['Content-Type'] = 'application/json; charset=utf-8';
    if (init.idempotencyKey !== undefined) headers['Idempotency-Key'] = init.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`/v1/${path}`, {
        method: init.method,
        headers,
        cache: 'no-store',
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    } catch (error) {
      throw new UnavailableError(error instanceof Error ? error.message : 'network error');
    }
    if (response.status === 502 || response.status === 503) throw new UnavailableError(`HTTP ${response.status}`);
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      throw new UnavailableError(`HTTP ${response.status} without a JSON body`);
    }
    if (!response.ok) {
      if (isObject(body) && typeof body['retcode'] === 'string' && typeof body['retmsg'] === 'string') {
        throw new ApiError(response.status, body['retcode'], unescapeText(body['retmsg']));
      }
      throw new UnavailableError(`HTTP ${response.status}`);
    }
    return body;
  }

  function readerOf<K extends SyncedKind>(kind: K): (record: unknown) => RecordOf<K>;
  function readerOf(kind: SyncedKind): (record: unknown) => Task | Label {
    return kind === 'tasks' ? readTask : readLabel;
  }

  return {
    async list(kind, query) {
      const params = new URLSearchParams();
      if (query.cursor !== undefined) params.set('cursor', query.cursor);
      if (query.limit !== undefined) params.set('limit', String(query.limit));
      const search = params.toString();
      return readPage(await call(search === '' ? kind : `${kind}?${search}`, { method: 'GET' }), readerOf(kind));
    },
    async getTask(id) {
      return readTask(await call(`tasks/${encodeURIComponent(id)}`, { method: 'GET' }));
    },
    async postTask(body, idempotencyKey) {
      return readTask(await call('tasks', { method: 'POST', body, idempotencyKey }));
    },
    async getSettings() {
      return readSettings(await call('settings', { method: 'GET' }));
    },
    async postSettings(body) {
      return readSettings(await call('settings', { method: 'POST', body }));
    },
  };
}
