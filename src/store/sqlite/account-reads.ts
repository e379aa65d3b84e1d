import type { Account, TokenGrant } from '../../domain/account.js';
import { ACCOUNT, TOKEN_GRANT } from '../auth/rows.js';
import type { DriverRow } from '../auth/shapes.js';
import type { StoreIdentity } from '../store.js';
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

/**
 * Reads the account's sync position, and the store's life it belongs to, for a list snapshot;
 * the first read pins the snapshot.
 */
export function prepareListHead(db: SqliteDatabase): (accountId: number) => AccountListHeadRow | undefined {
  const head = db.prepare<[accountId: number], AccountListHeadRow>(
    `SELECT a.rev, a.purged_rev, a.purged_updated, a.restore_gap_after, a.restore_gap_before,
            s.epoch, s.legacy_positions
     FROM accounts a CROSS JOIN store_identity s WHERE a.id = ?`,
  );
  return (accountId) => head.get(accountId);
}

/** The store's life as it is now. */
export function prepareIdentity(db: SqliteDatabase): () => StoreIdentity {
  const read = db.prepare<[], { epoch: string; legacy_positions: number }>(
    'SELECT epoch, legacy_positions FROM store_identity',
  );
  return () => {
    const row = read.get();
    if (row === undefined) throw new Error('the store has no identity: it was not migrated');
    return identityOf(row);
  };
}

export function identityOf(row: { readonly epoch: string; readonly legacy_positions: number }): StoreIdentity {
  return { epoch: row.epoch, legacyPositions: row.legacy_positions === 1 };
}
