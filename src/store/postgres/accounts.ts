import type pg from 'pg';
import type { Account, NewAccount, NewToken, SettingsPatch, TokenGrant } from '../../domain/account.js';
import type { Micros } from '../../domain/time.js';
// Shared with the SQLite store so both engines start accounts alike (see the shared suite).
import { UsernameTakenError } from '../../domain/errors.js';
import { ACCOUNT, ACCOUNT_INSERT, TOKEN_GRANT, TOKEN_INSERT } from '../auth/rows.js';
import type { DriverRow } from '../auth/shapes.js';
import { POSTGRES_ROWS } from './auth-rows.js';
import { numberFromBigint, type BigintText } from './values.js';
import { NoSuchAccountError, isUniqueViolation } from './errors.js';
import { Lease } from './lease.js';
import { STANDING_COLUMNS, standingFromRow, type Standing, type StandingRow } from './standings.js';
import { storableText } from './text.js';

/**
 * The account and its name in the `usernames` directory, in one transaction: the directory's key
 * is what keeps names unique, as `accounts` (distributed by id) cannot. Two statements, each on one
 * table, rather than one, so that a database distributed by account sends each where it belongs.
 */
export async function createAccount(pool: pg.Pool, account: NewAccount, now: Micros): Promise<Account> {
  const values = POSTGRES_ROWS.values(ACCOUNT_INSERT, { account, now });
  const lease = await Lease.take(pool);
  try {
    await lease.client.query('BEGIN');
    const result = await lease.client.query<DriverRow>(
      `${POSTGRES_ROWS.insert(ACCOUNT_INSERT)} RETURNING ${ACCOUNT.select}`,
      values,
    );
    const [row] = result.rows;
    if (row === undefined) throw new Error('insert returned no account');
    const made = POSTGRES_ROWS.decode(ACCOUNT, row);
    await lease.client.query('INSERT INTO usernames (username, account_id) VALUES ($1, $2)', [
      account.username,
      made.id,
    ]);
    await lease.client.query('COMMIT');
    return made;
  } catch (error) {
    await lease.rollback(error);
    if (isUniqueViolation(error, 'usernames_unique')) throw new UsernameTakenError(account.username);
    throw error;
  } finally {
    lease.release();
  }
}

/** The id of the account of that name, from the `usernames` directory (the name is not the key of `accounts`). */
export async function accountIdByName(pool: pg.Pool, username: string): Promise<number | undefined> {
  const result = await pool.query<{ account_id: BigintText }>('SELECT account_id FROM usernames WHERE username = $1', [
    username,
  ]);
  const [row] = result.rows;
  return row === undefined ? undefined : numberFromBigint(row.account_id);
}

async function firstAccount(pool: pg.Pool, condition: string, params: unknown[]): Promise<Account | undefined> {
  const result = await pool.query<DriverRow>(`SELECT ${ACCOUNT.select} FROM accounts WHERE ${condition}`, params);
  const [row] = result.rows;
  return row === undefined ? undefined : POSTGRES_ROWS.decode(ACCOUNT, row);
}

export async function findAccount(pool: pg.Pool, username: string): Promise<Account | undefined> {
  const id = await accountIdByName(pool, username);
  return id === undefined ? undefined : getAccount(pool, id);
}

export function getAccount(pool: pg.Pool, id: number): Promise<Account | undefined> {
  return firstAccount(pool, 'id = $1', [id]);
}

export async function setDisabled(pool: pg.Pool, username: string, disabled: boolean): Promise<boolean> {
  const id = await accountIdByName(pool, username);
  if (id === undefined) return false;
  const result = await pool.query('UPDATE accounts SET disabled = $2 WHERE id = $1', [id, disabled]);
  return result.rowCount !== null && result.rowCount > 0;
}

/** Changes only the settings present in the patch; `updated` moves forward even if the clock did not. */
export async function updateSettings(
  pool: pg.Pool,
  accountId: number,
  patch: SettingsPatch,
  now: Micros,
): Promise<Account> {
  const result = await pool.query<DriverRow>(
    'UPDATE accounts SET nickname = COALESCE($2, nickname), timezone = COALESCE($3, timezone), ' +
      'language = COALESCE($4, language), week_start = COALESCE($5, week_start), ' +
      `updated = GREATEST($6, updated + 1) WHERE id = $1 RETURNING ${ACCOUNT.select}`,
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
  return POSTGRES_ROWS.decode(ACCOUNT, row);
}

export async function insertToken(pool: pg.Pool, token: NewToken, now: Micros): Promise<void> {
  await pool.query(POSTGRES_ROWS.insert(TOKEN_INSERT), POSTGRES_ROWS.values(TOKEN_INSERT, { token, now }));
}

/** A token's grant, and where its account stood when it was read (its head, usage and stamps). */
export interface FoundToken {
  readonly grant: TokenGrant;
  readonly standing: Standing;
}

/** The token check of every request: its text is made once. */
const FIND_TOKEN =
  `SELECT ${TOKEN_GRANT.select}, ${STANDING_COLUMNS.map((column) => `a.${column}`).join(', ')} ` +
  'FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.account_id = $1 AND t.hash = $2';

/** The account's token of that hash (store.ts finds the account from the token first). */
export async function findToken(pool: pg.Pool, accountId: number, hash: string): Promise<FoundToken | undefined> {
  const result = await pool.query<DriverRow & StandingRow>(FIND_TOKEN, [accountId, hash]);
  const [row] = result.rows;
  if (row === undefined) return undefined;
  const standing = standingFromRow(row);
  const grant = POSTGRES_ROWS.decode(TOKEN_GRANT, row);
  return { grant: { ...grant, head: { rev: standing.rev, purgedRev: standing.purgedRev } }, standing };
}

/** Keeps the first revocation time when a token is revoked twice. */
export async function revokeToken(pool: pg.Pool, accountId: number, hash: string, now: Micros): Promise<boolean> {
  const result = await pool.query(
    'UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3) WHERE account_id = $1 AND hash = $2',
    [accountId, hash, now],
  );
  return result.rowCount !== null && result.rowCount > 0;
}
