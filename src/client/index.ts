/**
 * The Task Service SDK (`task-service/client`): typed calls for tasks, projects, contexts and
 * settings over fetch. It absorbs the interface's traps once: strings arrive HTML-escaped and are
 * unescaped here, date-times arrive in the account's zone and become Dates, a sync follows
 * `has_more` and starts over on E008, and writes carry an Idempotency-Key so they are retried
 * safely on E503, E502 or a lost connection. `AccountClient` is the signed-in browser's own
 * endpoints (`/account/*`), for a web app the service serves. It imports nothing of the server at
 * run time.
 */
import { formatWireDate } from './dates.js';
import { TaskServiceError } from './errors.js';
import {
  DATE_FIELDS,
  DATE_FIELDS_OF,
  decodeRecord,
  encodeWrite,
  type RecordOf,
  type Settings,
  type SettingsWrite,
  type SyncKind,
  type WriteOf,
} from './records.js';
import { syncPages, type SyncPage } from './sync.js';
import { Transport, type TransportOptions } from './transport.js';

export { TaskServiceError } from './errors.js';
export { BOXES, type Box } from './records.js';
export {
  AccountClient,
  AccountError,
  isSignedOut,
  type AccountClientOptions,
  type AccountErrorCode,
  type ConnectedApp,
  type ExportFormat,
  type ImportFormat,
  type ImportReport,
  type MadeToken,
  type PersonalToken,
  type SignedIn,
  type TokenRequest,
} from './account.js';
export { CALENDAR_DATE, calendarDateIn, formatWireDate, parseWireDate, startOfDayIn, wallClockIn } from './dates.js';
export { unescapeHtml } from './escape.js';
export {
  authorizationUrl,
  codeFromRedirect,
  exchangeCode,
  makePkce,
  makeState,
  OAuthRefusal,
  refreshTokens,
  revokeToken,
  type AuthorizationRequest,
  type OAuthTokens,
  type Pkce,
} from './oauth.js';
export {
  parseQuickAdd,
  quickAddStartDate,
  quickAddTask,
  withoutToken,
  type QuickAdd,
  type QuickAddPlace,
  type QuickAddToken,
  type StartDay,
} from './quick-add.js';
export type {
  Context,
  ContextWrite,
  DateInput,
  Project,
  ProjectWrite,
  Settings,
  SettingsWrite,
  SyncKind,
  Task,
  TaskWrite,
} from './records.js';
export type { SyncPage } from './sync.js';
export type { Fetch, RetryListener, RetryPolicy } from './transport.js';
export { verifyWebhook, type VerifyOptions } from './webhooks.js';

export interface ClientOptions extends TransportOptions {
  /**
   * The zone Dates are written in on the way out (any zone is read right by the service; the
   * account's own keeps the wall clock the user sees). Default: the account's, once settings
   * were read, else UTC.
   */
  readonly timeZone?: string;
}

/** A page of a listing as the service answers it, records decoded. */
export interface ListPage<T> {
  readonly entries: readonly T[];
  readonly cursor: string;
  readonly has_more: boolean;
}

export interface ListOptions {
  readonly cursor?: string;
  /** Records changed strictly after this moment (deleted ones included). */
  readonly updatedAfter?: Date | string;
  readonly limit?: number;
  /**
   * With `cursor`: when nothing changed since, the service holds the answer until something does
   * or this many seconds (1-60) pass, then answers empty with the same cursor (API.md 4.6).
   */
  readonly wait?: number;
}

/** How a sync reads: `pageSize` entries a page at most; `wait` seconds for a first change (with a cursor). */
export interface SyncOptions {
  readonly pageSize?: number;
  readonly wait?: number;
}

/** How a write is sent. */
export interface WriteOptions {
  /**
   * The write's Idempotency-Key, for a caller that keeps the write and may send it again later
   * (a queue kept across reloads): the service applies it once however often it arrives.
   * Default: a new key, the same on every retry of this call.
   */
  readonly idempotencyKey?: string;
}

function keyOf(options: WriteOptions): string {
  return options.idempotencyKey ?? globalThis.crypto.randomUUID();
}

/** The calls of one synced resource: `client.tasks`, `client.projects`, `client.contexts`. */
export class Records<K extends SyncKind> {
  constructor(
    private readonly client: TaskServiceClient,
    private readonly kind: K,
  ) {}

  private decode(wire: unknown): RecordOf[K] {
    return decodeRecord<RecordOf[K]>(wire, DATE_FIELDS_OF[this.kind]);
  }

  /** One page of the listing (all records without a limit). */
  async list(options: ListOptions = {}): Promise<ListPage<RecordOf[K]>> {
    const updatedAfter =
      options.updatedAfter instanceof Date
        ? formatWireDate(options.updatedAfter, this.client.timeZone)
        : options.updatedAfter;
    const answer = await this.client.transport.send({
      method: 'GET',
      path: `v1/${this.kind}`,
      query: { cursor: options.cursor, updated_after: updatedAfter, limit: options.limit, wait: options.wait },
    });
    const page = listPageOf(answer);
    return { entries: page.entries.map((entry) => this.decode(entry)), cursor: page.cursor, has_more: page.has_more };
  }

  /** Every live record (a full listing, deleted ones left out), page after page. */
  async all(pageSize?: number): Promise<RecordOf[K][]> {
    const records: RecordOf[K][] = [];
    for await (const page of this.client.sync(this.kind, undefined, pageSize)) records.push(...page.entries);
    return records;
  }

  /** One record, deleted ones included; E007 when there is none. */
  async get(id: string): Promise<RecordOf[K]> {
    return this.decode(
      await this.client.transport.send({ method: 'GET', path: `v1/${this.kind}/${encodeURIComponent(id)}` }),
    );
  }

  /** Creates or updates one record (only the fields given change); retried safely. */
  async save(write: WriteOf[K], options: WriteOptions = {}): Promise<RecordOf[K]> {
    return this.decode(await this.client.post(`v1/${this.kind}`, encodeWrite(write, this.client.timeZone), options));
  }

  /** Creates or updates several in one transaction (all or nothing), in order; retried safely. */
  async saveMany(writes: readonly WriteOf[K][], options: WriteOptions = {}): Promise<RecordOf[K][]> {
    const answer = await this.client.post(
      `v1/${this.kind}`,
      writes.map((write) => encodeWrite(write, this.client.timeZone)),
      options,
    );
    return entriesOf(answer).map((entry) => this.decode(entry));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entriesOf(answer: unknown): unknown[] {
  const entries = isRecord(answer) ? answer['entries'] : undefined;
  if (!Array.isArray(entries)) throw new TypeError('the service answered without entries');
  return entries;
}

function listPageOf(answer: unknown): { entries: unknown[]; cursor: string; has_more: boolean } {
  const entries = entriesOf(answer);
  const cursor = isRecord(answer) ? answer['cursor'] : undefined;
  const hasMore = isRecord(answer) ? answer['has_more'] : undefined;
  if (typeof cursor !== 'string' || typeof hasMore !== 'boolean')
    throw new TypeError('the service answered a listing without cursor');
  return { entries, cursor, has_more: hasMore };
}

export class TaskServiceClient {
  /** @internal */
  readonly transport: Transport;
  private zone: string | undefined;

  readonly tasks = new Records(this, 'tasks');
  readonly projects = new Records(this, 'projects');
  readonly contexts = new Records(this, 'contexts');

  constructor(private readonly options: ClientOptions) {
    this.transport = new Transport(options);
    this.zone = options.timeZone;
  }

  /** The zone Dates are written in. */
  get timeZone(): string {
    return this.zone ?? 'UTC';
  }

  /** @internal A keyed POST: one Idempotency-Key for every attempt of this write. */
  post(path: string, body: unknown, options: WriteOptions = {}): Promise<unknown> {
    return this.transport.send({ method: 'POST', path, body, idempotencyKey: keyOf(options) });
  }

  /** The account's settings; its zone becomes the one Dates are written in, unless one was given. */
  async settings(): Promise<Settings> {
    return this.remember(
      decodeRecord<Settings>(await this.transport.send({ method: 'GET', path: 'v1/settings' }), DATE_FIELDS.settings),
    );
  }

  async updateSettings(write: SettingsWrite, options: WriteOptions = {}): Promise<Settings> {
    return this.remember(
      decodeRecord<Settings>(
        await this.post('v1/settings', encodeWrite(write, this.timeZone), options),
        DATE_FIELDS.settings,
      ),
    );
  }

  private remember(settings: Settings): Settings {
    if (this.options.timeZone === undefined) this.zone = settings.timezone;
    return settings;
  }

  /**
   * The changes since `cursor` (everything when undefined), page by page until `has_more` is
   * false; keep the last page's cursor for the next sync. On E008 it starts over with a full
   * listing, whose first page says `restarted`. With `{ wait }` and a cursor, the first page is
   * held by the service until something changes or `wait` seconds pass (then it is empty): call
   * it again with the last cursor to follow an account's changes as they happen.
   */
  sync<K extends SyncKind>(
    kind: K,
    cursor?: string,
    options: number | SyncOptions = {},
  ): AsyncGenerator<SyncPage<RecordOf[K]>> {
    const { pageSize, wait } = typeof options === 'number' ? { pageSize: options, wait: undefined } : options;
    const records = new Records(this, kind);
    let first = true;
    return syncPages(
      (from, limit) => {
        // Only the first page waits: the pages after it continue what is there already.
        const waiting = first && from !== undefined ? wait : undefined;
        first = false;
        return records.list({
          ...(from === undefined ? {} : { cursor: from }),
          ...(limit === undefined ? {} : { limit }),
          ...(waiting === undefined ? {} : { wait: waiting }),
        });
      },
      cursor,
      pageSize,
    );
  }
}

/** Whether an error is the service's answer with this retcode. */
export function isRetcode(error: unknown, retcode: string): error is TaskServiceError {
  return error instanceof TaskServiceError && error.retcode === retcode;
}
