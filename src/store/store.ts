import type { Account, NewAccount, NewToken, SettingsPatch, TokenGrant } from '../domain/account.js';
import type { Context, ContextDraft, Project, ProjectDraft } from '../domain/label.js';
import type { Task, TaskDraft } from '../domain/task.js';
import type { Micros } from '../domain/time.js';

/** The records an account syncs, by the name of their list resource's kind. */
export interface RecordsByKind {
  readonly task: Task;
  readonly project: Project;
  readonly context: Context;
}
export type SyncKind = keyof RecordsByKind;

/** Where an account's data stands: every change raises `rev`, every purge `purgedRev`. */
export interface AccountHead {
  readonly rev: number;
  readonly purgedRev: number;
}

export interface ListQuery {
  /** Only changes with a larger `rev` (a cursor position). */
  readonly afterRev?: number;
  /** Only records whose `updated` is strictly later. */
  readonly updatedAfter?: Micros;
  /** Tombstones (records with `deleted` set) are listed only when asked for. */
  readonly includeDeleted: boolean;
  /** At most this many records; absent: all. */
  readonly limit?: number;
}

/**
 * One consistent snapshot of an account's records, read in ascending `rev` in batches.
 * The caller must `close()` it, also when it stops early.
 */
export interface ListSnapshot<T> {
  /** The account's change number when the snapshot was taken: "everything up to now". */
  readonly headRev: number;
  /** The largest `rev` and `updated` among purged tombstones (0 when nothing was purged). */
  readonly purgedRev: number;
  readonly purgedUpdated: Micros;
  /** The next batch in ascending `rev`, or null when the answer (limit included) is complete. */
  nextBatch(): Promise<readonly T[] | null>;
  close(): Promise<void>;
}

/**
 * The writes of one request for one account, inside one transaction that holds the account's
 * change-number lock. Each put stamps the record with the account's next `rev` and `updated`.
 */
export interface WriteTx {
  getTask(id: string): Promise<Task | undefined>;
  putTask(draft: TaskDraft): Promise<Task>;
  getProject(id: string): Promise<Project | undefined>;
  findProjectByName(name: string): Promise<Project | undefined>;
  putProject(draft: ProjectDraft): Promise<Project>;
  getContext(id: string): Promise<Context | undefined>;
  findContextByName(name: string): Promise<Context | undefined>;
  putContext(draft: ContextDraft): Promise<Context>;
  /** Live tasks (not deleted) that point at the project or context, for renames and deletions. */
  tasksWithLabel(kind: 'project' | 'context', id: string): Promise<readonly Task[]>;
  /** The answer kept for an `Idempotency-Key` of this account, if any. */
  findAnswer(key: string): Promise<StoredAnswer | undefined>;
  /** Keeps (or replaces) the answer for an `Idempotency-Key`, committed with the writes it answers. */
  saveAnswer(key: string, requestHash: string, answer: string): Promise<void>;
}

/** The first answer to a POST with an `Idempotency-Key`, replayed to retries. */
export interface StoredAnswer {
  readonly requestHash: string;
  readonly answer: string;
  readonly created: Micros;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /** Applies pending migrations; safe when several processes start at once. */
  migrate(): Promise<void>;
  /** Resolves when the store answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;

  createAccount(account: NewAccount): Promise<Account>;
  findAccount(username: string): Promise<Account | undefined>;
  getAccount(id: number): Promise<Account | undefined>;
  setDisabled(username: string, disabled: boolean): Promise<boolean>;
  updateSettings(accountId: number, patch: SettingsPatch): Promise<Account>;

  insertToken(token: NewToken): Promise<void>;
  findToken(hash: string): Promise<TokenGrant | undefined>;
  /** Marks the token revoked; false when no such token exists. */
  revokeToken(hash: string): Promise<boolean>;

  /** Runs `work` in one transaction for the account: all its puts commit together or not at all. */
  write<T>(accountId: number, work: (tx: WriteTx) => Promise<T>): Promise<T>;
  get<K extends SyncKind>(accountId: number, kind: K, id: string): Promise<RecordsByKind[K] | undefined>;
  /** The account's head, read alone: cheap, for telling whether anything changed. */
  head(accountId: number): Promise<AccountHead | undefined>;
  list<K extends SyncKind>(accountId: number, kind: K, query: ListQuery): Promise<ListSnapshot<RecordsByKind[K]>>;
  /** Removes tombstones deleted before `deletedBefore`, remembering per account what was purged. */
  purge(deletedBefore: Micros): Promise<number>;
  /** Drops the answers kept for `Idempotency-Key`s made before `createdBefore`. */
  forgetAnswers(createdBefore: Micros): Promise<number>;
}

/** The database cannot be reached or is shutting down; the request may be retried later (E503). */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super('store unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

/** A username that is already taken (the one uniqueness rule that spans accounts). */
export class UsernameTakenError extends Error {
  constructor(readonly username: string) {
    super(`username taken: ${username}`);
    this.name = 'UsernameTakenError';
  }
}
