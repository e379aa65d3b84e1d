import type { Account, TokenGrant } from '../../domain/account.js';
import { scopeOf } from '../auth-columns.js';

/** The columns of `accounts` that make an Account, as SQLite returns them. */
export interface AccountRow {
  readonly id: number;
  readonly username: string;
  readonly nickname: string;
  readonly timezone: string;
  readonly language: string;
  readonly week_start: number;
  readonly disabled: number;
  readonly created: number;
  readonly updated: number;
}

const ACCOUNT_COLUMN_NAMES = [
  'id',
  'username',
  'nickname',
  'timezone',
  'language',
  'week_start',
  'disabled',
  'created',
  'updated',
];

/** The select list for AccountRow. */
export const ACCOUNT_COLUMNS = ACCOUNT_COLUMN_NAMES.join(', ');

/** The same, qualified by the alias `a`, for joins with tables that share column names. */
export const ACCOUNT_COLUMNS_OF_A = ACCOUNT_COLUMN_NAMES.map((name) => `a.${name}`).join(', ');

/** A token joined with its account. */
export interface TokenGrantRow extends AccountRow {
  readonly scope: string;
  readonly expires_at: number | null;
  readonly revoked_at: number | null;
}

/** The account's sync position, read and advanced by every write transaction. */
export interface AccountHeadRow {
  readonly rev: number;
  readonly last_updated: number;
}

/** What a list snapshot reports about the account besides its records. */
export interface AccountListHeadRow {
  readonly rev: number;
  readonly purged_rev: number;
  readonly purged_updated: number;
}

export function accountFromRow(row: AccountRow): Account {
  return {
    id: row.id,
    username: row.username,
    nickname: row.nickname,
    timezone: row.timezone,
    language: row.language,
    weekStart: row.week_start,
    disabled: row.disabled === 1,
    created: row.created,
    updated: row.updated,
  };
}

export function grantFromRow(row: TokenGrantRow): TokenGrant {
  return {
    account: accountFromRow(row),
    scope: scopeOf(row.scope),
    expiresAt: row.expires_at,
    revoked: row.revoked_at !== null,
  };
}
