import type { TokenGrant } from '../../domain/account.js';

/** Bound on remembered lookups, unknown tokens included, so guessing cannot grow memory. */
const MAX_GRANTS = 10_000;

/**
 * Token lookups remembered for as long as nothing they read has changed. SQLite's
 * `PRAGMA data_version` on the read connection changes whenever any other connection (this
 * process's writer, or an admin command revoking a token) commits; only then is the grant version
 * read (grant-version.ts), which changes only with what a lookup reads. So a remembered answer is
 * exactly what the query would answer now, and a stream of task writes keeps them. Expiry is not
 * cached away: the caller compares `expiresAt` with the clock on every request.
 */
export class GrantCache {
  readonly #grants = new Map<string, TokenGrant | undefined>();
  #dataVersion = Number.NaN;
  #grantVersion: number | undefined;

  constructor(
    private readonly dataVersion: () => number,
    private readonly grantVersion: () => number | undefined,
    private readonly lookup: (hash: string) => TokenGrant | undefined,
  ) {}

  find(hash: string): TokenGrant | undefined {
    const dataVersion = this.dataVersion();
    if (dataVersion !== this.#dataVersion) {
      this.#dataVersion = dataVersion;
      const grantVersion = this.grantVersion();
      if (grantVersion === undefined || grantVersion !== this.#grantVersion) this.#grants.clear();
      this.#grantVersion = grantVersion;
    }
    if (this.#grants.size >= MAX_GRANTS) this.#grants.clear();
    if (this.#grants.has(hash)) return this.#grants.get(hash);
    const grant = this.lookup(hash);
    this.#grants.set(hash, grant);
    return grant;
  }
}
