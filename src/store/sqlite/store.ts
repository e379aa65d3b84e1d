import type { Account, NewAccount, NewToken, SettingsPatch, TokenGrant } from '../../domain/account.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { SecretKey } from '../../domain/secret-key.js';
import type { AccountHead, RecordsByKind, SyncKind } from '../../domain/sync.js';
import { nowMicros, type Micros } from '../../domain/time.js';
import type { DueReminder, ListQuery, ListSnapshot, Store, StoreIdentity, WriteTx } from '../store.js';
import { prepareDueReminders } from './due-reminders.js';
import { SerialQueue } from '../queue.js';
import { AccountReads, prepareIdentity, prepareListHead } from './account-reads.js';
import { AccountWrites } from './account-writes.js';
import { KeptOutcomes } from './kept-outcomes.js';
import { SqliteAuthStore } from './auth-store.js';
import {
  connectionSettings,
  openReadConnection,
  openWriteConnection,
  type ConnectionSettings,
  type SqliteDatabase,
  type SynchronousMode,
} from './connection.js';
import { applyMigrations } from './migrations.js';
import { Purger } from './purge.js';
import { prepareGetters, type RecordGetter } from './kind-statements.js';
import { prepareRecordWrites, type RecordWrites } from './record-writes.js';
import { Snapshots } from './snapshot.js';
import { isBusy } from './sqlite-errors.js';
import { GrantCache } from './grant-cache.js';
import { GRANT_VERSION_SQL } from './grant-version.js';
import { GroupCommit } from './group-commit.js';
import { UNSYNCED, WalSync, type CommitDurability } from './wal-sync.js';
import { SqliteWriteTx } from './write-tx.js';
import { SqliteWebhookStore } from './webhooks.js';
import type { WebhookStore } from '../webhook-store.js';
import type { ChangeFeed } from '../change-feed.js';
import { ChangeListeners, writeTold } from '../change-listeners.js';

export interface SqliteStoreOptions {
  /** The database file; created when missing. */
  readonly file: string;
  /**
   * Default `FULL`: an answered write survives power loss (the WAL is synced after each commit,
   * off the event loop, before the writes in it are answered). `NORMAL`: only a crash.
   */
  readonly synchronous?: SynchronousMode;
  /** The clock that stamps records; the wall clock unless a test sets another. */
  readonly clock?: () => Micros;
}

export function openSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options);
}

/** What runs on the write connection, prepared on first use (after `migrate()` made the tables). */
interface WriteStatements {
  readonly accounts: AccountWrites;
  readonly records: RecordWrites;
  readonly kept: KeptOutcomes;
  readonly purger: Purger;
  readonly begin: { run(): unknown };
  readonly commit: { run(): unknown };
  readonly rollback: { run(): unknown };
  readonly savepoint: { run(): unknown };
  readonly release: { run(): unknown };
  readonly rollbackToSavepoint: { run(): unknown };
}

/** What runs on the shared read connection, prepared on first use. */
interface ReadStatements {
  readonly accounts: AccountReads;
  readonly records: { readonly [K in SyncKind]: RecordGetter<RecordsByKind[K]> };
  readonly snapshots: Snapshots;
  readonly listHead: ReturnType<typeof prepareListHead>;
  readonly identity: ReturnType<typeof prepareIdentity>;
  readonly grants: GrantCache;
  readonly dueReminders: (until: Micros, limit: number) => DueReminder[];
}

/** How the write connection is set up, and what an answered write survives. */
export interface WriteSettings extends ConnectionSettings {
  /** `FULL`: an answered write survives power loss; `NORMAL`: a killed process only. */
  readonly durability: SynchronousMode;
}

/**
 * The embedded store: one SQLite file in WAL mode, one write connection whose transactions run
 * one at a time through a queue, and a read connection that sees the last commit meanwhile.
 * Commits are made durable by `#durability` (wal-sync.ts), off the event loop.
 */
export class SqliteStore implements Store {
  readonly engine = 'sqlite';
  readonly oneWriterForAll = true;
  readonly auth: SqliteAuthStore;
  readonly #file: string;
  readonly #writer: SqliteDatabase;
  readonly #reader: SqliteDatabase;
  readonly #writeQueue = new SerialQueue();
  readonly #durabilityMode: SynchronousMode;
  readonly #durability: CommitDurability;
  readonly #groupCommit = new GroupCommit(
    {
      begin: () => this.#writes().begin.run(),
      commit: () => this.#writes().commit.run(),
      durable: () => this.#durability.afterCommit(),
      // A failed COMMIT may already have ended the transaction.
      rollback: () => {
        if (this.#writer.inTransaction) this.#writes().rollback.run();
      },
      savepoint: () => this.#writes().savepoint.run(),
      release: () => this.#writes().release.run(),
      rollbackToSavepoint: () => this.#writes().rollbackToSavepoint.run(),
    },
    // Not #queueWrite: a write accepted before close() must still commit while closing.
    (flush) => this.#writeQueue.run(flush),
  );
  readonly #ping;
  readonly #totalChanges;
  readonly #now: () => Micros;
  #writeStatements: WriteStatements | undefined;
  #readStatements: ReadStatements | undefined;
  #closing: Promise<void> | undefined;
  readonly #changes = new ChangeListeners(true);
  readonly webhooks: WebhookStore;
  readonly #hooks: SqliteWebhookStore;
  /** Every commit of this store, told once it is durable (issue #24). */
  readonly changes: ChangeFeed = this.#changes;

  constructor(options: SqliteStoreOptions) {
    this.#file = options.file;
    this.#now = options.clock ?? nowMicros;
    this.#durabilityMode = options.synchronous ?? 'FULL';
    this.#durability = this.#durabilityMode === 'FULL' ? new WalSync(options.file) : UNSYNCED;
    // The writer first: it creates the file and turns on WAL, which the reader relies on. It runs
    // SQLite's synchronous=NORMAL in both modes: under FULL, #durability makes the sync of the WAL
    // that SQLite's own FULL would make inside COMMIT, blocking the event loop.
    this.#writer = openWriteConnection(options.file);
    this.#totalChanges = this.#writer.prepare<[], number>('SELECT total_changes()').pluck();
    try {
      this.#reader = openReadConnection(options.file);
      this.#ping = this.#reader.prepare('SELECT 1');
    } catch (error) {
      this.#writer.close();
      throw error;
    }
    this.auth = new SqliteAuthStore(this.#writer, (job) => this.#queueWrite(job));
    this.#hooks = new SqliteWebhookStore(this.#writer, (job) => this.#queueWrite(job));
    this.webhooks = this.#hooks;
  }

  /** How the write connection is set up (WAL, synchronous, ...), for diagnostics. */
  writeConnectionSettings(): WriteSettings {
    this.#assertOpen();
    return { ...connectionSettings(this.#writer), durability: this.#durabilityMode };
  }

  async migrate(): Promise<void> {
    // Not through #onWriter: the statements it prepares need the tables made here.
    await this.#queueWrite(() => applyMigrations(this.#writer, this.#now()));
  }

  async ping(): Promise<void> {
    this.#assertOpen();
    this.#ping.get();
    // Refused once a sync of the WAL failed: no write can be answered any more.
    await this.#durability.covered(0);
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutDown();
    return this.#closing;
  }

  async createAccount(account: NewAccount): Promise<Account> {
    return this.#onWriter((writes) => writes.accounts.createAccount(account, this.#now()));
  }

  async findAccount(username: string): Promise<Account | undefined> {
    return this.#reads().accounts.findAccount(username);
  }

  async getAccount(id: number): Promise<Account | undefined> {
    return this.#reads().accounts.getAccount(id);
  }

  async setDisabled(username: string, disabled: boolean): Promise<boolean> {
    return this.#onWriter((writes) => writes.accounts.setDisabled(username, disabled));
  }

  async updateSettings(accountId: number, patch: SettingsPatch): Promise<Account> {
    return this.#onWriter((writes) => writes.accounts.updateSettings(accountId, patch, this.#now()));
  }

  async insertToken(token: NewToken): Promise<void> {
    await this.#onWriter((writes) => writes.accounts.insertToken(token, this.#now()));
  }

  // Never distributed: a token is found by its hash alone (see SqliteAuthStore).
  async findToken(key: SecretKey): Promise<TokenGrant | undefined> {
    return this.#reads().grants.find(key.hash);
  }

  async revokeToken(key: SecretKey): Promise<boolean> {
    return this.#onWriter((writes) => writes.accounts.revokeToken(key.hash, this.#now()));
  }

  /**
   * Runs `work` in a transaction on the write connection, grouped with the other writes that
   * arrive meanwhile into one commit (one fsync); each in its own savepoint, so one failing rolls
   * back alone. Resolves only once the group is committed. `work` may await freely, but must not
   * call `write` itself (it would wait for its own end).
   */
  write<T>(accountId: number, work: (tx: WriteTx) => Promise<T>): Promise<T> {
    // This process is the only writer of the file: its own commits are every change there is.
    return writeTold(
      this.#changes,
      accountId,
      work,
      (noted) => this.#writeGrouped(accountId, noted),
      (id) => this.#hooks.hasActiveHook(id),
    );
  }

  #writeGrouped<T>(accountId: number, work: (tx: WriteTx) => Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    const grouped = this.#groupCommit.run(async () => {
      const writes = this.#writes();
      const head = writes.accounts.head(accountId);
      if (head === undefined) throw new Error(`no account with id ${accountId}`);
      const tx = new SqliteWriteTx(
        writes.records,
        writes.kept,
        (id) => writes.accounts.usage(id),
        accountId,
        { rev: head.rev, updated: head.last_updated },
        this.#now,
      );
      try {
        const result = await work(tx);
        const last = tx.end();
        if (last !== null) writes.accounts.setHead(accountId, last.rev, last.updated);
        return result;
      } finally {
        tx.end();
      }
    });
    return grouped.catch((error: unknown) => {
      throw isBusy(error) ? new StoreUnavailableError(error) : error;
    });
  }

  async get<K extends SyncKind>(accountId: number, kind: K, id: string): Promise<RecordsByKind[K] | undefined> {
    return this.#readDurable(() => this.#reads().records[kind].get(accountId, id));
  }

  async head(accountId: number): Promise<AccountHead | undefined> {
    const row = await this.#readDurable(() => this.#reads().listHead(accountId));
    return row === undefined ? undefined : { rev: row.rev, purgedRev: row.purged_rev };
  }

  async identity(): Promise<StoreIdentity> {
    return this.#readDurable(() => this.#reads().identity());
  }

  async list<K extends SyncKind>(
    accountId: number,
    kind: K,
    query: ListQuery,
  ): Promise<ListSnapshot<RecordsByKind[K]>> {
    // The snapshot is taken here, at once: later batches read no commit made after it.
    return this.#readDurable(() => this.#reads().snapshots.open(accountId, kind, query));
  }

  async purge(deletedBefore: Micros): Promise<number> {
    const accountIds = await this.#onWriter((writes) => writes.accounts.allIds());
    let purged = 0;
    // One transaction per account, each queued on its own, so requests get their turns between.
    for (const accountId of accountIds) {
      purged += await this.#onWriter((writes) => writes.purger.purgeAccount(accountId, deletedBefore));
    }
    return purged;
  }

  async dueReminders(until: Micros, limit: number): Promise<readonly DueReminder[]> {
    return this.#readDurable(() => this.#reads().dueReminders(until, limit));
  }

  async forgetKept(createdBefore: Micros): Promise<number> {
    const accountIds = await this.#onWriter((writes) => writes.accounts.allIds());
    let forgotten = 0;
    for (const accountId of accountIds) {
      forgotten += await this.#onWriter((writes) => writes.kept.forget(accountId, createdBefore));
    }
    return forgotten;
  }

  /**
   * Reads synced data, and hands it out only once the commits it may show are durable: a client
   * never holds a change (or a cursor past it) that a power cut could take back and the next
   * write reuse the change number of. The read is synchronous, so no commit falls in between.
   */
  async #readDurable<T>(read: () => T): Promise<T> {
    const mark = this.#durability.mark();
    const result = read();
    await this.#durability.covered(mark);
    return result;
  }

  /** Queues a job for the write connection with the statements it uses. */
  #onWriter<T>(job: (writes: WriteStatements) => T | Promise<T>): Promise<T> {
    return this.#queueWrite(() => job(this.#writes()));
  }

  /**
   * Queues a job for the write connection. Refused once the store is closing; jobs queued
   * before still run. Another process holding the lock past the busy timeout makes the store
   * unavailable for this request, not broken.
   */
  #queueWrite<T>(job: () => T | Promise<T>): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(closedError());
    let synced: Promise<void> = Promise.resolve();
    const done = this.#writeQueue.run(async () => {
      const changesBefore = this.#totalChanges.get();
      try {
        return await job();
      } catch (error) {
        throw isBusy(error) ? new StoreUnavailableError(error) : error;
      } finally {
        // Each job's statements commit as they end (autocommit or a transaction of their own).
        if (this.#totalChanges.get() !== changesBefore) synced = this.#durability.afterCommit();
      }
    });
    // Answered once durable; the queue goes on to the next job meanwhile.
    return done.then(
      async (result) => {
        await synced;
        return result;
      },
      async (error: unknown) => {
        await synced;
        throw error;
      },
    );
  }

  #writes(): WriteStatements {
    this.#writeStatements ??= {
      accounts: new AccountWrites(this.#writer),
      records: prepareRecordWrites(this.#writer),
      kept: new KeptOutcomes(this.#writer),
      purger: new Purger(this.#writer),
      begin: this.#writer.prepare('BEGIN IMMEDIATE'),
      commit: this.#writer.prepare('COMMIT'),
      rollback: this.#writer.prepare('ROLLBACK'),
      savepoint: this.#writer.prepare('SAVEPOINT grouped_write'),
      release: this.#writer.prepare('RELEASE grouped_write'),
      rollbackToSavepoint: this.#writer.prepare('ROLLBACK TO grouped_write'),
    };
    return this.#writeStatements;
  }

  #reads(): ReadStatements {
    this.#assertOpen();
    this.#readStatements ??= this.#prepareReads();
    return this.#readStatements;
  }

  #prepareReads(): ReadStatements {
    const accounts = new AccountReads(this.#reader);
    const dataVersion = this.#reader.prepare<[], number>('PRAGMA data_version').pluck();
    const grantVersion = this.#reader.prepare<[], number>(GRANT_VERSION_SQL).pluck();
    return {
      accounts,
      records: prepareGetters(this.#reader),
      snapshots: new Snapshots(this.#file, this.#reader),
      listHead: prepareListHead(this.#reader),
      identity: prepareIdentity(this.#reader),
      dueReminders: prepareDueReminders(this.#reader),
      grants: new GrantCache(
        () => dataVersion.get() ?? 0,
        () => grantVersion.get(),
        (hash) => accounts.findToken(hash),
      ),
    };
  }

  #assertOpen(): void {
    if (this.#closing !== undefined) throw closedError();
  }

  async #shutDown(): Promise<void> {
    await this.#groupCommit.drained();
    await this.#writeQueue.idle();
    await this.#durability.close();
    this.#readStatements?.snapshots.closeAll();
    this.#reader.close();
    this.#writer.close();
  }
}

function closedError(): StoreUnavailableError {
  return new StoreUnavailableError(new Error('the store is closed'));
}
