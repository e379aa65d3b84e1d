import type pg from 'pg';
import type { Account, NewAccount, NewToken, SettingsPatch, TokenGrant } from '../../domain/account.js';
import type { SecretKey } from '../../domain/secret-key.js';
import type { AccountHead, RecordsByKind, SyncKind } from '../../domain/sync.js';
import { nowMicros, type Micros } from '../../domain/time.js';
import { AccountQueue } from '../queue.js';
import type { DueReminder, ListQuery, ListSnapshot, Store, StoreIdentity, WriteTx } from '../store.js';
import { numberFromBigint, type BigintText } from './values.js';
import * as accounts from './accounts.js';
import { PostgresAuthStore } from './auth-store.js';
import { guarded } from './errors.js';
import { applyMigrations } from './migrate.js';
import { MIGRATIONS } from './migrations.js';
import { readIdentity } from './snapshot.js';
import { createPool, serverTimeouts, type PostgresOptions, type ServerTimeouts } from './pool.js';
import { purgeTombstones } from './purge.js';
import { underAccountOfSecret } from './secret-route.js';
import { PostgresListSnapshot } from './snapshot.js';
import { readRecord } from './record-reads.js';
import { Standings } from './standings.js';
import { KIND_TABLES } from './tables.js';
import { writeForAccount } from './write.js';
import type { ChangeFeed } from '../change-feed.js';
import { ChangeListeners, writeTold } from '../change-listeners.js';
import { ChangeListener } from './change-listener.js';
import { PostgresWebhookStore } from './webhooks.js';
import type { WebhookStore } from '../webhook-store.js';

export type { PostgresOptions } from './pool.js';

/**
 * The store on PostgreSQL, for one or many service processes sharing a database. Every method
 * reports an unreachable, stopping or overloaded database as StoreUnavailableError (E503); the
 * pool reconnects by itself once the server is back.
 */
export class PostgresStore implements Store {
  readonly engine = 'postgres';
  readonly oneWriterForAll = false;
  /**
   * Makes this process's writes for one account wait their turn in memory rather than on the
   * database's row lock: otherwise every queued writer of a busy account would hold a pooled
   * connection while it waits, and enough of them would starve every other account. Writers in
   * other processes still queue on the row lock, which is what orders change numbers.
   */
  readonly auth: PostgresAuthStore;
  private readonly writeQueue = new AccountQueue();
  private readonly standings = new Standings();
  private closing: Promise<void> | undefined;
  readonly #changes: ChangeListeners;
  readonly webhooks: WebhookStore;
  readonly #listener: ChangeListener | undefined;
  /**
   * This process's commits, told as they commit, and every process's, heard through LISTEN on a
   * connection of its own (opened on the first subscription). Without a URL to listen on (behind
   * a pooler with no --database-listen-url) only this process's own commits are told. `outbox`
   * notes come only through LISTEN: the outbox triggers notify them (migration 14).
   */
  readonly changes: ChangeFeed;

  constructor(
    private readonly pool: pg.Pool,
    /** What the transactions this store opens set for themselves (Lease.begin). */
    private readonly timeouts: ServerTimeouts,
    private readonly now: () => Micros = nowMicros,
    listenUrl?: string,
  ) {
    this.auth = new PostgresAuthStore(pool);
    this.webhooks = new PostgresWebhookStore(pool);
    this.#changes = new ChangeListeners(listenUrl !== undefined);
    this.#listener = listenUrl === undefined ? undefined : new ChangeListener(listenUrl, this.#changes);
    this.changes = {
      subscribe: (listener) => {
        this.#listener?.start();
        return this.#changes.subscribe(listener);
      },
      tellsOutbox: this.#changes.tellsOutbox,
    };
  }

  /** Whether the change feed hears other processes now: false behind a pooler without a URL to listen on, or while reconnecting. */
  get hearsOthers(): boolean {
    return this.#listener?.listening === true;
  }

  /** This process's connections, for the metrics: open, idle, and requests waiting for one. */
  poolUsage(): { readonly total: number; readonly idle: number; readonly waiting: number } {
    return { total: this.pool.totalCount, idle: this.pool.idleCount, waiting: this.pool.waitingCount };
  }

  migrate(): Promise<void> {
    return guarded(() => applyMigrations(this.pool, MIGRATIONS, this.now()));
  }

  ping(): Promise<void> {
    return guarded(async () => {
      await this.pool.query('SELECT 1');
    });
  }

  /**
   * Waits for connections in use (open snapshots, running writes) to come back, then closes them
   * all. Closing again returns the same promise rather than failing.
   */
  close(): Promise<void> {
    this.closing ??= Promise.all([this.#listener?.close(), this.pool.end()]).then(() => undefined);
    return this.closing;
  }

  createAccount(account: NewAccount): Promise<Account> {
    return guarded(() => accounts.createAccount(this.pool, account, this.now()));
  }

  findAccount(username: string): Promise<Account | undefined> {
    return guarded(() => accounts.findAccount(this.pool, username));
  }

  getAccount(id: number): Promise<Account | undefined> {
    return guarded(() => accounts.getAccount(this.pool, id));
  }

  setDisabled(username: string, disabled: boolean): Promise<boolean> {
    return guarded(() => accounts.setDisabled(this.pool, username, disabled));
  }

  updateSettings(accountId: number, patch: SettingsPatch): Promise<Account> {
    return guarded(() => accounts.updateSettings(this.pool, accountId, patch, this.now()));
  }

  insertToken(token: NewToken): Promise<void> {
    return guarded(() => accounts.insertToken(this.pool, token, this.now()));
  }

  /** Also notes where the account stands, read in the same statement: the next write counts on from it. */
  findToken(key: SecretKey): Promise<TokenGrant | undefined> {
    return guarded(async () => {
      const found = await underAccountOfSecret(this.pool, key, (accountId) =>
        accounts.findToken(this.pool, accountId, key.hash),
      );
      if (found === undefined) return undefined;
      this.standings.note(found.grant.account.id, found.standing);
      return found.grant;
    });
  }

  revokeToken(key: SecretKey): Promise<boolean> {
    return guarded(async () => {
      const now = this.now();
      const revoked = await underAccountOfSecret(this.pool, key, async (accountId) =>
        (await accounts.revokeToken(this.pool, accountId, key.hash, now)) ? true : undefined,
      );
      return revoked === true;
    });
  }

  write<T>(accountId: number, work: (tx: WriteTx) => Promise<T>): Promise<T> {
    // Told here at once for this process's listeners; other processes hear it through NOTIFY.
    return writeTold(this.#changes, accountId, work, (noted) =>
      this.writeQueue.run(accountId, () =>
        guarded(() => writeForAccount(this.pool, accountId, noted, this.now, this.standings)),
      ),
    );
  }

  /** Deleted records included: a client that asks for one by id learns that it was deleted. */
  get<K extends SyncKind>(accountId: number, kind: K, id: string): Promise<RecordsByKind[K] | undefined> {
    return guarded(() => readRecord(this.pool, accountId, kind, id));
  }

  head(accountId: number): Promise<AccountHead | undefined> {
    return guarded(async () => {
      const result = await this.pool.query<{ rev: BigintText; purged_rev: BigintText }>(
        'SELECT rev, purged_rev FROM accounts WHERE id = $1',
        [accountId],
      );
      const [row] = result.rows;
      return row === undefined
        ? undefined
        : { rev: numberFromBigint(row.rev), purgedRev: numberFromBigint(row.purged_rev) };
    });
  }

  identity(): Promise<StoreIdentity> {
    return guarded(() => readIdentity(this.pool));
  }

  list<K extends SyncKind>(accountId: number, kind: K, query: ListQuery): Promise<ListSnapshot<RecordsByKind[K]>> {
    return guarded(() => PostgresListSnapshot.open(this.pool, KIND_TABLES[kind], accountId, query, this.timeouts));
  }

  dueReminders(until: Micros, limit: number): Promise<readonly DueReminder[]> {
    // Across accounts, on the index of reminder_due alone: the firer's read (administration); a
    // database distributed by account asks every shard and merges the answers by time.
    return guarded(async () => {
      const result = await this.pool.query<{ account_id: BigintText; id: string; reminder_due: BigintText }>(
        `SELECT account_id, id, reminder_due FROM tasks
         WHERE reminder_due IS NOT NULL AND reminder_due <= $1 ORDER BY reminder_due LIMIT $2`,
        [until, limit],
      );
      return result.rows.map((row) => ({
        accountId: numberFromBigint(row.account_id),
        taskId: row.id,
        due: numberFromBigint(row.reminder_due),
      }));
    });
  }

  forgetKept(createdBefore: Micros): Promise<number> {
    // One statement over all accounts: a maintenance sweep (administration), not a data query;
    // a database distributed by account runs it on every shard.
    return guarded(async () => {
      const result = await this.pool.query('DELETE FROM idempotency_answers WHERE created < $1', [createdBefore]);
      return result.rowCount ?? 0;
    });
  }

  purge(deletedBefore: Micros): Promise<number> {
    return guarded(() => purgeTombstones(this.pool, deletedBefore, this.timeouts));
  }
}

export function openPostgresStore(options: PostgresOptions, clock?: () => Micros): PostgresStore {
  // Directly to the server a LISTEN stays put; through a pooler only when given a URL past it.
  const listenUrl = options.listenUrl ?? (options.pooled === true ? undefined : options.url);
  return new PostgresStore(createPool(options), serverTimeouts(options), clock, listenUrl);
}
