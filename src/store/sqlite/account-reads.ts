import type { Account, TokenGrant } from '../../domain/account.js';
import { ACCOUNT, TOKEN_GRANT } from '../auth/rows.js';
import type { DriverRow } from '../auth/shapes.js';
import type { AccountListHeadRow } from './account-rows.js';
import { decoding } from './auth-rows.js';
import type { SqliteDatabase } from './connection.js';

/** Statements that read accounts and tokens, prepared once on a read connection. */
export class AccountReads {
  readonly #byUsername;
  readonly #byId;
  readonly #grant;

  constructor(db: SqliteDatabase) {
    this.#byUsername = decoding(
      ACCOUNT,
      db.prepare<[username: string], DriverRow>(`SELECT ${ACCOUNT.select} FROM accounts WHERE username = ?`),
    );
    this.#byId = decoding(
      ACCOUNT,
      db.prepare<[id: number], DriverRow>(`SELECT ${ACCOUNT.select} FROM accounts WHERE id = ?`),
    );
    this.#grant = decoding(
      TOKEN_GRANT,
      db.prepare<[hash: string], DriverRow>(
        `SELECT ${TOKEN_GRANT.select} FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.hash = ?`,
      ),
    );
  }

  findAccount(username: string): Account | undefined {
    return this.#byUsername.get(username);
  }

  getAccount(id: number): Account | undefined {
    return this.#byId.get(id);
  }

  findToken(hash: string): TokenGrant | undefined {
    return this.#grant.get(hash);
  }
}

/** Reads the account's sync position for a list snapshot; the first read pins the snapshot. */
export function prepareListHead(db: SqliteDatabase): (accountId: number) => AccountListHeadRow | undefined {
  const head = db.prepare<[accountId: number], AccountListHeadRow>(
    'SELECT rev, purged_rev, purged_updated FROM accounts WHERE id = ?',
  );
  return (accountId) => head.get(accountId);
}
