import type { Account, TokenGrant } from '../../domain/account.js';
import {
  ACCOUNT_COLUMNS,
  ACCOUNT_COLUMNS_OF_A,
  accountFromRow,
  grantFromRow,
  type AccountListHeadRow,
  type AccountRow,
  type TokenGrantRow,
} from './account-rows.js';
import type { SqliteDatabase } from './connection.js';

/** Statements that read accounts and tokens, prepared once on a read connection. */
export class AccountReads {
  readonly #byUsername;
  readonly #byId;
  readonly #grant;

  constructor(db: SqliteDatabase) {
    this.#byUsername = db.prepare<[username: string], AccountRow>(
      `SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE username = ?`,
    );
    this.#byId = db.prepare<[id: number], AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = ?`);
    this.#grant = db.prepare<[hash: string], TokenGrantRow>(
      `SELECT ${ACCOUNT_COLUMNS_OF_A}, t.scope, t.expires_at, t.revoked_at
       FROM tokens t JOIN accounts a ON a.id = t.account_id
       WHERE t.hash = ?`,
    );
  }

  findAccount(username: string): Account | undefined {
    const row = this.#byUsername.get(username);
    return row === undefined ? undefined : accountFromRow(row);
  }

  getAccount(id: number): Account | undefined {
    const row = this.#byId.get(id);
    return row === undefined ? undefined : accountFromRow(row);
  }

  findToken(hash: string): TokenGrant | undefined {
    const row = this.#grant.get(hash);
    return row === undefined ? undefined : grantFromRow(row);
  }
}

/** Reads the account's sync position for a list snapshot; the first read pins the snapshot. */
export function prepareListHead(db: SqliteDatabase): (accountId: number) => AccountListHeadRow | undefined {
  const head = db.prepare<[accountId: number], AccountListHeadRow>(
    'SELECT rev, purged_rev, purged_updated FROM accounts WHERE id = ?',
  );
  return (accountId) => head.get(accountId);
}
