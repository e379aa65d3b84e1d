/**
 * A presented secret (token, session id, authorization code, refresh token) as the store looks it
 * up: by its SHA-256 hash, under the account the secret names. Secrets made since PostgreSQL
 * migration 7 begin with their account's id, so that a database distributed by account finds the
 * row on the right shard at once (docs/operations.md, "Sharding by account"). The account is only
 * a route, never a credential: the hash covers the whole secret, prefix included, so no presented
 * secret has a right hash and a wrong account; an engine that is never distributed (SQLite) may
 * look up by the hash alone.
 */
export interface SecretKey {
  readonly hash: string;
  /** The account the secret names; null: it names none (a secret made before migration 7). */
  readonly accountId: number | null;
}

/** The hex digits that begin a routed secret: its account id, zero-padded (64 bits). */
export const ACCOUNT_PREFIX_DIGITS = 16;

const ACCOUNT_PREFIX = new RegExp(`^[0-9a-f]{${ACCOUNT_PREFIX_DIGITS}}`);

/** The prefix that makes a secret name its account. */
export function accountPrefix(accountId: number): string {
  if (!Number.isSafeInteger(accountId) || accountId <= 0) throw new RangeError(`not an account id: ${accountId}`);
  return accountId.toString(16).padStart(ACCOUNT_PREFIX_DIGITS, '0');
}

/**
 * The account a secret names, or null. A secret made before migration 7 is random throughout: its
 * first digits, when they happen to be hex, name some account (rarely one below 2^53) where its
 * hash is not found, and the store then asks its directory of older secrets.
 */
export function accountNamedBy(secret: string): number | null {
  const prefix = ACCOUNT_PREFIX.exec(secret)?.[0];
  if (prefix === undefined) return null;
  const accountId = Number.parseInt(prefix, 16);
  return Number.isSafeInteger(accountId) && accountId > 0 ? accountId : null;
}
