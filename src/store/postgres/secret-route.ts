import type { SecretKey } from '../../domain/secret-key.js';
import type { Queryable } from './tables.js';
import { numberFromBigint, type BigintText } from './values.js';

/**
 * Runs `attempt` under the account that holds a presented secret, so that each statement names one
 * account and a database distributed by account sends it to one shard. First under the account the
 * secret names (every secret made since migration 7 names its own); when the hash is not there, or
 * the secret names none, under the account `legacy_secrets` gives for it (a secret made before),
 * if any. `attempt` answers undefined for "not under this account".
 */
export async function underAccountOfSecret<T>(
  db: Queryable,
  key: SecretKey,
  attempt: (accountId: number) => Promise<T | undefined>,
): Promise<T | undefined> {
  if (key.accountId !== null) {
    const found = await attempt(key.accountId);
    if (found !== undefined) return found;
  }
  const result = await db.query<{ account_id: BigintText }>('SELECT account_id FROM legacy_secrets WHERE hash = $1', [
    key.hash,
  ]);
  const row = result.rows[0];
  if (row === undefined) return undefined;
  const accountId = numberFromBigint(row.account_id);
  return accountId === key.accountId ? undefined : attempt(accountId);
}

/** For an attempt that changes rows: "found" when it changed any, so that `undefined` means "not here". */
export function foundIfAny(rowCount: number | null): true | undefined {
  return rowCount !== null && rowCount > 0 ? true : undefined;
}
