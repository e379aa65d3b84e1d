import type pg from 'pg';
import {
  DEFAULT_LANGUAGE,
  DEFAULT_WEEK_START,
  type Account,
  type NewAccount,
  type NewToken,
  type SettingsPatch,
  type TokenGrant,
} from '../../domain/account.js';
import type { Micros } from '../../domain/time.js';
// Shared with the SQLite store so both engines start accounts alike (see the shared suite).
import { UsernameTakenError } from '../../domain/errors.js';
import {
  ACCOUNT_COLUMNS,
  accountFromRow,
  tokenGrantFromRow,
  type AccountRow,
  type TokenGrantRow,
} from './account-rows.js';
import { NoSuchAccountError, isUniqueViolation } from './errors.js';
import { STANDING_COLUMNS, standingFromRow, type Standing, type StandingRow } from './standings.js';
import { storableText } from './text.js';

export async function createAccount(pool: pg.Pool, account: NewAccount, now: Micros): Promise<Account> {
  try {
    const result = await pool.query<AccountRow>(
      'INSERT INTO accounts (username, password_hash, nickname, timezone, language, week_start, created, updated) ' +
        `VALUES ($1, $2, $1, $3, $4, $5, $6, $6) RETURNING ${ACCOUNT_COLUMNS}`,
      [
        storableText('username', account.username),
        account.passwordHash,
        storableText('timezone', account.timezone),
        DEFAULT_LANGUAGE,
        DEFAULT_WEEK_START,
        now,
      ],
    );
    const [row] = result.rows;
    if (row === undefined) throw new Error('insert returned no account');
    return accountFromRow(row);
  } catch (error) {
    if (isUniqueViolation(error, 'accounts_username_unique')) throw new UsernameTakenError(account.username);
    throw error;
  }
}

async function firstAccount(pool: pg.Pool, condition: string, params: unknown[]): Promise<Account | undefined> {
  const result = await pool.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE ${condition}`, params);
  const [row] = result.rows;
  return row === undefined ? undefined : accountFromRow(row);
}

export function findAccount(pool: pg.Pool, username: string): Promise<Account | undefined> {
  return firstAccount(pool, 'username = $1', [username]);
}

export function getAccount(pool: pg.Pool, id: number): Promise<Account | undefined> {
  return firstAccount(pool, 'id = $1', [id]);
}

export async function setDisabled(pool: pg.Pool, username: string, disabled: boolean): Promise<boolean> {
  const result = await pool.query('UPDATE accounts SET disabled = $2 WHERE username = $1', [username, disabled]);
  return result.rowCount !== null && result.rowCount > 0;
}

/** Changes only the settings present in the patch; `updated` moves forward even if the clock did not. */
export async function updateSettings(
  pool: pg.Pool,
  accountId: number,
  patch: SettingsPatch,
  now: Micros,
): Promise<Account> {
  const result = await pool.query<AccountRow>(
    'UPDATE accounts SET nickname = COALESCE($2, nickname), timezone = COALESCE($3, timezone), ' +
      'language = COALESCE($4, language), week_start = COALESCE($5, week_start), ' +
      `updated = GREATEST($6, updated + 1) WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
    [
      accountId,
      storableText('nickname', patch.nickname ?? null),
      storableText('timezone', patch.timezone ?? null),
      storableText('language', patch.language ?? null),
      patch.weekStart ?? null,
      now,
    ],
  );
  const [row] = result.rows;
  if (row === undefined) throw new NoSuchAccountError(accountId);
  return accountFromRow(row);
}

export async function insertToken(pool: pg.Pool, token: NewToken, now: Micros): Promise<void> {
  await pool.query(
    'INSERT INTO tokens (hash, account_id, scope, name, created, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [token.hash, token.accountId, token.scope, storableText('name', token.name), now, token.expiresAt],
  );
}

/** A token's grant, and where its account stood when it was read (its head, usage and stamps). */
export interface FoundToken {
  readonly grant: TokenGrant;
  readonly standing: Standing;
}

export async function findToken(pool: pg.Pool, hash: string): Promise<FoundToken | undefined> {
  const accountColumns = [...ACCOUNT_COLUMNS.split(', '), ...STANDING_COLUMNS]
    .map((column) => `a.${column}`)
    .join(', ');
  const result = await pool.query<TokenGrantRow & StandingRow>(
    `SELECT t.scope, t.expires_at, t.revoked_at, ${accountColumns} ` +
      'FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.hash = $1',
    [hash],
  );
  const [row] = result.rows;
  if (row === undefined) return undefined;
  const standing = standingFromRow(row);
  return { grant: { ...tokenGrantFromRow(row), head: { rev: standing.rev, purgedRev: standing.purgedRev } }, standing };
}

/** Keeps the first revocation time when a token is revoked twice. */
export async function revokeToken(pool: pg.Pool, hash: string, now: Micros): Promise<boolean> {
  const result = await pool.query('UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE hash = $1', [
    hash,
    now,
  ]);
  return result.rowCount !== null && result.rowCount > 0;
}
