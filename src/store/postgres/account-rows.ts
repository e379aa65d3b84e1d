import type { Account, TokenGrant } from '../../domain/account.js';
import { scopeOf } from '../auth-columns.js';
import { microsOrNull, numberFromBigint, type BigintText } from './values.js';

/** The account columns that make up an `Account` (not the password hash or sync counters). */
export const ACCOUNT_COLUMNS = 'id, username, nickname, timezone, language, week_start, disabled, created, updated';

export interface AccountRow {
  readonly id: BigintText;
  readonly username: string;
  readonly nickname: string;
  readonly timezone: string;
  readonly language: string;
  readonly week_start: number;
  readonly disabled: boolean;
  readonly created: BigintText;
  readonly updated: BigintText;
}

/** A token joined with its account's columns (see `ACCOUNT_COLUMNS`). */
export interface TokenGrantRow extends AccountRow {
  readonly scope: string;
  readonly expires_at: BigintText | null;
  readonly revoked_at: BigintText | null;
}

export function accountFromRow(row: AccountRow): Account {
  return {
    id: numberFromBigint(row.id),
    username: row.username,
    nickname: row.nickname,
    timezone: row.timezone,
    language: row.language,
    weekStart: row.week_start,
    disabled: row.disabled,
    created: numberFromBigint(row.created),
    updated: numberFromBigint(row.updated),
  };
}

export function tokenGrantFromRow(row: TokenGrantRow): TokenGrant {
  return {
    account: accountFromRow(row),
    scope: scopeOf(row.scope),
    expiresAt: microsOrNull(row.expires_at),
    revoked: row.revoked_at !== null,
  };
}
