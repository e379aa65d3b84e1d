import type { Account, NewAccount, NewToken, SettingsPatch, TokenGrant } from '../domain/account.js';
import type { AccountHead, DraftsByKind, NamedKind, RecordsByKind, SyncKind, WriteOutcome } from '../domain/sync.js';
import type { Label, Task } from '../domain/task.js';
import type { StorageUsage } from '../domain/storage-quota.js';
import type { SecretKey } from '../domain/secret-key.js';
import type { Micros } from '../domain/time.js';
import type { AuthStore } from './auth-store.js';
import type { ChangeFeed } from './change-feed.js';
import type { WebhookStore } from './webhook-store.js';

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

/** The store's life: its epoch, new when it was made and at each restore. */
export interface StoreIdentity {
  readonly epoch: string;
  /**
   * Whether positions handed out before epochs (`c1.` cursors) are still good: true only on a
   * store that had accounts when it got its epoch, and has not been restored since.
   */
  readonly legacyPositions: boolean;
}

export interface RestoreGap {
  readonly after: Micros;
  readonly before: Micros;
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
  /** Where the store stands in its lives and restores, read in the same snapshot. */
  readonly identity: StoreIdentity;
  /**
   * The stretch of `updated` times the last restore lost for this account: after the backup's
   * newest change, before the restore (both 0 when it was never restored). A date strictly inside
   * it is a position the restored store never handed out.
   */
  readonly restoreGap: RestoreGap;
  /** The next batch in ascending `rev`, or null when the answer (limit included) is complete. */
  nextBatch(): Promise<readonly T[] | null>;
  close(): Promise<void>;
}

/** Which of a label's tasks `WriteTx.withLabel` reads: those not showing `shown`, at most `limit` (all without). */
export interface LabelPending {
  readonly shown: Label | null;
  readonly limit?: number;
}

/**
 * The writes of one request for one account, inside one transaction that holds the account's
 * change-number lock. Each put stamps the record with the account's next `rev` and `updated`.
 */
export interface WriteTx {
  /** The account's record of that kind and id, deleted ones included. */
  get<K extends SyncKind>(kind: K, id: string): Promise<RecordsByKind[K] | undefined>;
  put<K extends SyncKind>(kind: K, draft: DraftsByKind[K]): Promise<RecordsByKind[K]>;
  /** The live (not deleted) record of that name: names are unique among those. */
  findLive<K extends NamedKind>(kind: K, name: string): Promise<RecordsByKind[K] | undefined>;
  /**
   * Live tasks that carry the project or context, for renames and deletions, in `rev` order. With
   * `pending`, only those that do not show it as `pending.shown` yet (by name; every one when it
   * is null, the label deleted), the first `pending.limit` of them: a rename can be shown on its
   * tasks a slice per transaction, without reading those that show it already.
   */
  withLabel(kind: NamedKind, id: string, pending?: LabelPending): Promise<readonly Task[]>;
  /** Live tasks whose parent is one of these, this transaction's puts included: a subtree, level by level. */
  childrenOf(parentIds: readonly string[]): Promise<readonly Task[]>;
  /** What the account stores now, this transaction's writes included (kept by the engine). */
  usage(): Promise<StorageUsage>;
  /** The outcome kept for a retry key of this account, if any. */
  findKept(key: string): Promise<KeptOutcome | undefined>;
  /** Keeps (or replaces) the outcome for a retry key, committed with the writes it answers. */
  keep(key: string, requestHash: string, outcome: WriteOutcome): Promise<void>;
}

/** A task whose next reminder falls due: which account's, which task, when. */
export interface DueReminder {
  readonly accountId: number;
  readonly taskId: string;
  readonly due: Micros;
}

/** The first outcome of a write under a retry key, replayed to retries. */
export interface KeptOutcome {
  readonly requestHash: string;
  readonly outcome: WriteOutcome;
  readonly created: Micros;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  /**
   * Whether one account's write holds every other account's (SQLite's single writer) rather than
   * that account's alone (PostgreSQL's lock on the account row): a long write then costs everyone.
   */
  readonly oneWriterForAll: boolean;
  /** Sign-in, OAuth and token management (ACCOUNTS.md). */
  readonly auth: AuthStore;
  /** Webhooks, their outbox and delivery logs (API.md 4.7). */
  readonly webhooks: WebhookStore;
  /** This process's one change feed: account X's head moved (issue #24). */
  readonly changes: ChangeFeed;
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
  findToken(key: SecretKey): Promise<TokenGrant | undefined>;
  /** Marks the token revoked; false when no such token exists. */
  revokeToken(key: SecretKey): Promise<boolean>;

  /**
   * Runs `work` in one transaction for the account: all its puts commit together or not at all.
   * `work` may run more than once (PostgreSQL prepares a write again when another process changed
   * the account meanwhile), so it must act on nothing but `tx` until the write resolves.
   */
  write<T>(accountId: number, work: (tx: WriteTx) => Promise<T>): Promise<T>;
  get<K extends SyncKind>(accountId: number, kind: K, id: string): Promise<RecordsByKind[K] | undefined>;
  /** The account's head, read alone: cheap, for telling whether anything changed. */
  head(accountId: number): Promise<AccountHead | undefined>;
  /** The store's life as it is now (it changes only at a restore, with the service stopped). */
  identity(): Promise<StoreIdentity>;
  list<K extends SyncKind>(accountId: number, kind: K, query: ListQuery): Promise<ListSnapshot<RecordsByKind[K]>>;
  /**
   * A maintenance sweep over every account (administration), one account at a time.
   * Removes tombstones the server deleted (stamped `updated`) before `deletedBefore`, whatever
   * `deleted` their client sent, remembering per account what was purged.
   */
  purge(deletedBefore: Micros): Promise<number>;
  /**
   * The tasks of every account whose next reminder (Task.reminderDue) falls due by `until`,
   * earliest first, at most `limit`: one read of an index on that time alone, so it costs the
   * same however many tasks the store holds (administration: the firer of reminders).
   */
  dueReminders(until: Micros, limit: number): Promise<readonly DueReminder[]>;
  /** Drops the outcomes kept for retry keys before `createdBefore`: a sweep over every account (administration). */
  forgetKept(createdBefore: Micros): Promise<number>;
}
