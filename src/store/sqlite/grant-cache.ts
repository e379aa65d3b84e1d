import type { TokenGrant } from '../../domain/account.js';

/** Bound on remembered lookups, unknown tokens included, so guessing cannot grow memory. */
const MAX_GRANTS = 10_000;

/**
 * Token lookups remembered for as long as the database has not changed. SQLite's
 * `PRAGMA data_version` on the read connection changes whenever any other connection (this
 * process's writer, or an admin command revoking a token) commits, so a remembered answer is
 * exactly what the query would answer now. Expiry is not cached away: the caller compares
 * `expiresAt` with the clock on every request.
 */
export class GrantCache {
  readonly #grants = new Map<string, TokenGrant | undefined>();
  #version = Number.NaN;

  constructor(
    private readonly dataVersion: () => number,
    private readonly lookup: (hash: string) => TokenGrant | undefined,
  ) {}

  find(hash: string): TokenGrant | undefined {
    const version = this.dataVersion();
    if (version !== this.#version || this.#grants.size >= MAX_GRANTS) {
      this.#grants.clear();
      this.#version = version;
    }
    if (this.#grants.has(hash)) return this.#grants.get(hash);
    const grant = this.lookup(hash);
    this.#grants.set(hash, grant);
    return grant;
  }
}
