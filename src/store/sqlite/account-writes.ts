import type { Account, NewAccount, NewToken, SettingsPatch } from '../../domain/account.js';
import type { StorageUsage } from '../../domain/storage-quota.js';
import type { Micros } from '../../domain/time.js';
import { UsernameTakenError } from '../../domain/errors.js';
import { ACCOUNT, ACCOUNT_INSERT, TOKEN_INSERT } from '../auth/rows.js';
import type { DriverRow } from '../auth/shapes.js';
import type { AccountHeadRow } from './account-rows.js';
import { decoding, prepareInsert, SQLITE_ROWS } from './auth-rows.js';
import type { SqliteDatabase } from './connection.js';
import { isUniqueViolation } from './sqlite-errors.js';

interface SettingsParams {
  readonly id: number;
  readonly nickname: string | null;
  readonly timezone: string | null;
  readonly language: string | null;
  readonly week_start: number | null;
  readonly now: number;
}

/** Statements that change accounts and tokens, prepared once on the write connection. */
export class AccountWrites {
  readonly #insertAccount;
  readonly #setDisabled;
  readonly #updateSettings;
  readonly #insertToken;
  readonly #revokeToken;
  readonly #head;
  readonly #usage;
  readonly #setHead;
  readonly #allIds;

  constructor(db: SqliteDatabase) {
    this.#insertAccount = decoding(
      ACCOUNT,
      db.prepare<unknown[], DriverRow>(`${SQLITE_ROWS.insert(ACCOUNT_INSERT)} RETURNING ${ACCOUNT.select}`),
    );
    this.#setDisabled = db.prepare<[disabled: number, username: string]>(
      'UPDATE accounts SET disabled = ? WHERE username = ?',
    );
    // An absent field binds NULL and keeps its value. `updated` never goes back, like the
    // stamps of records, even when the clock does.
    this.#updateSettings = decoding(
      ACCOUNT,
      db.prepare<SettingsParams, DriverRow>(
        `UPDATE accounts SET
           nickname = coalesce(@nickname, nickname), timezone = coalesce(@timezone, timezone),
           language = coalesce(@language, language), week_start = coalesce(@week_start, week_start),
           updated = max(@now, updated + 1)
         WHERE id = @id
         RETURNING ${ACCOUNT.select}`,
      ),
    );
    this.#insertToken = prepareInsert(db, TOKEN_INSERT);
    // Revoking twice keeps the first time.
    this.#revokeToken = db.prepare<[revokedAt: number, hash: string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE hash = ?',
    );
    this.#head = db.prepare<[accountId: number], AccountHeadRow>('SELECT rev, last_updated FROM accounts WHERE id = ?');
    this.#usage = db.prepare<[accountId: number], StorageUsage>(
      'SELECT stored_records AS records, stored_bytes AS bytes FROM accounts WHERE id = ?',
    );
    this.#setHead = db.prepare<[rev: number, lastUpdated: number, accountId: number]>(
      'UPDATE accounts SET rev = ?, last_updated = ? WHERE id = ?',
    );
    this.#allIds = db.prepare<[], number>('SELECT id FROM accounts ORDER BY id').pluck();
  }

  createAccount(account: NewAccount, now: Micros): Account {
    try {
      const made = this.#insertAccount.get(...SQLITE_ROWS.values(ACCOUNT_INSERT, { account, now }));
      if (made === undefined) throw new Error('inserting an account returned no row');
      return made;
    } catch (error) {
      // username is the only unique column a new account can clash on (id is assigned).
      if (isUniqueViolation(error)) throw new UsernameTakenError(account.username);
      throw error;
    }
  }

  setDisabled(username: string, disabled: boolean): boolean {
    return this.#setDisabled.run(disabled ? 1 : 0, username).changes > 0;
  }

  updateSettings(accountId: number, patch: SettingsPatch, now: Micros): Account {
    const updated = this.#updateSettings.get({
      id: accountId,
      nickname: patch.nickname ?? null,
      timezone: patch.timezone ?? null,
      language: patch.language ?? null,
      week_start: patch.weekStart ?? null,
      now,
    });
    if (updated === undefined) throw new Error(`no account with id ${accountId}`);
    return updated;
  }

  insertToken(token: NewToken, now: Micros): void {
    this.#insertToken({ token, now });
  }

  revokeToken(hash: string, now: Micros): boolean {
    return this.#revokeToken.run(now, hash).changes > 0;
  }

  /** The account's change number and last stamp; undefined when there is no such account. */
  head(accountId: number): AccountHeadRow | undefined {
    return this.#head.get(accountId);
  }

  /** What the account stores, as the engine's triggers keep it (migration 5). */
  usage(accountId: number): StorageUsage {
    const usage = this.#usage.get(accountId);
    if (usage === undefined) throw new Error(`no account with id ${accountId}`);
    return usage;
  }

  setHead(accountId: number, rev: number, lastUpdated: Micros): void {
    this.#setHead.run(rev, lastUpdated, accountId);
  }

  /** Every account's id, for the housekeeping that goes account by account. */
  allIds(): number[] {
    return this.#allIds.all();
  }
}
