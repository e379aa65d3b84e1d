import type pg from 'pg';
import type { Account, Scope } from '../../domain/account.js';
import type {
  AuthorizationCode,
  ConnectedApp,
  FailureCount,
  NewIssuedToken,
  NewSessionToken,
  OAuthClient,
  RefreshGrant,
  Session,
  TokenSummary,
} from '../../domain/auth.js';
import type { SecretKey } from '../../domain/secret-key.js';
import type { Micros } from '../../domain/time.js';
import {
  ACCOUNT,
  CLIENT,
  CLIENT_INSERT,
  CONNECTED_APP,
  CONSENT_INSERT,
  CONSENT_SCOPE,
  CODE_INSERT,
  CREDENTIALS,
  FAILURE_INSERT,
  FAILURES,
  ISSUED_TOKEN,
  REFRESH_GRANT,
  REFRESH_INSERT,
  SESSION,
  SESSION_INSERT,
  TAKEN_CODE,
  TOKEN_INSERT,
  TOKEN_SUMMARY,
} from '../auth/rows.js';
import type { AuthColumns, DriverRow, RowShape } from '../auth/shapes.js';
import type { AuthStore, TakenCode, TokenUse } from '../auth-store.js';
import { accountIdByName } from './accounts.js';
import { POSTGRES_ROWS } from './auth-rows.js';
import { guarded } from './errors.js';
import { foundIfAny, underAccountOfSecret } from './secret-route.js';
import { storableText } from './text.js';
import { numberFromBigint, type BigintText } from './values.js';

/**
 * The AuthStore on PostgreSQL. Each change is one statement (data-modifying CTEs where several
 * tables change together), so each is atomic without holding a connection across round trips.
 * Each statement names one account (found first from the username or the secret), except the
 * administration ones, which say so.
 */
export class PostgresAuthStore implements AuthStore {
  constructor(private readonly pool: pg.Pool) {}

  async #rows<R extends pg.QueryResultRow>(sql: string, params: readonly unknown[]): Promise<R[]> {
    return guarded(async () => (await this.pool.query<R>(sql, [...params])).rows);
  }

  /** The statement's rows, decoded as `shape` reads them. */
  async #read<C extends AuthColumns, V>(shape: RowShape<C, V>, sql: string, params: readonly unknown[]): Promise<V[]> {
    return (await this.#rows<DriverRow>(sql, params)).map((row) => POSTGRES_ROWS.decode(shape, row));
  }

  async #count(sql: string, params: readonly unknown[]): Promise<number> {
    return guarded(async () => (await this.pool.query(sql, [...params])).rowCount ?? 0);
  }

  #accountIdByName(username: string): Promise<number | undefined> {
    return guarded(() => accountIdByName(this.pool, username));
  }

  async findCredentials(username: string): Promise<{ account: Account; passwordHash: string | null } | undefined> {
    const id = await this.#accountIdByName(username);
    if (id === undefined) return undefined;
    const [found] = await this.#read(CREDENTIALS, `SELECT ${CREDENTIALS.select} FROM accounts WHERE id = $1`, [id]);
    return found;
  }

  async setPassword(username: string, passwordHash: string, now: Micros): Promise<boolean> {
    const id = await this.#accountIdByName(username);
    if (id === undefined) return false;
    const rows = await this.#rows(
      `WITH changed AS (UPDATE accounts SET password_hash = $2 WHERE id = $1 RETURNING id),
            ended AS (DELETE FROM sessions WHERE account_id = $1 RETURNING hash),
            revoked AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3)
                        WHERE account_id = $1 AND grant_id IN (SELECT hash FROM ended))
       SELECT id FROM changed`,
      [id, passwordHash, now],
    );
    return rows.length > 0;
  }

  /** Administration (`user list`): every account. */
  listAccounts(): Promise<readonly Account[]> {
    return this.#read(ACCOUNT, `SELECT ${ACCOUNT.select} FROM accounts ORDER BY username`, []);
  }

  async createSession(hash: string, accountId: number, now: Micros): Promise<void> {
    await this.#count(
      POSTGRES_ROWS.insert(SESSION_INSERT),
      POSTGRES_ROWS.values(SESSION_INSERT, { hash, accountId, now }),
    );
  }

  /** Runs `attempt` under the account that holds the secret (secret-route.ts). */
  #underAccountOf<T>(key: SecretKey, attempt: (accountId: number) => Promise<T | undefined>): Promise<T | undefined> {
    return guarded(() => underAccountOfSecret(this.pool, key, attempt));
  }

  findSession(key: SecretKey): Promise<Session | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      const [session] = await this.#read(
        SESSION,
        `SELECT ${SESSION.select} FROM sessions s JOIN accounts a ON a.id = s.account_id
         WHERE s.account_id = $1 AND s.hash = $2`,
        [accountId, key.hash],
      );
      return session;
    });
  }

  async touchSession(key: SecretKey, now: Micros): Promise<void> {
    await this.#underAccountOf(key, async (accountId) =>
      foundIfAny(
        await this.#count(
          'UPDATE sessions SET last_seen = GREATEST(last_seen, $3) WHERE account_id = $1 AND hash = $2',
          [accountId, key.hash, now],
        ),
      ),
    );
  }

  async deleteSession(key: SecretKey, now: Micros): Promise<void> {
    await this.#underAccountOf(key, async (accountId) => {
      const [row] = await this.#rows<{ ended: BigintText }>(
        `WITH ended AS (DELETE FROM sessions WHERE account_id = $1 AND hash = $2 RETURNING hash),
              revoked AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3)
                          WHERE account_id = $1 AND grant_id IN (SELECT hash FROM ended))
         SELECT count(*) AS ended FROM ended`,
        [accountId, key.hash, now],
      );
      return foundIfAny(row === undefined ? 0 : numberFromBigint(row.ended));
    });
  }

  /** A maintenance sweep over every account (administration): one statement for all of them. */
  async forgetSessions(seenBefore: Micros, now: Micros): Promise<number> {
    const [row] = await this.#rows<{ ended: BigintText }>(
      `WITH ended AS (DELETE FROM sessions WHERE last_seen < $1 RETURNING account_id, hash),
            revoked AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2)
                        WHERE (account_id, grant_id) IN (SELECT account_id, hash FROM ended))
       SELECT count(*) AS ended FROM ended`,
      [seenBefore, now],
    );
    return row === undefined ? 0 : numberFromBigint(row.ended);
  }

  async insertSessionToken(token: NewSessionToken, now: Micros): Promise<boolean> {
    // A sign-out committing in the same instant may miss the token made meanwhile: it then lives
    // out its short expiry (docs/auth.md), unreachable, as the browser asking for it was signed out.
    const values = POSTGRES_ROWS.values(TOKEN_INSERT, { token, now });
    const made = await this.#count(
      `${POSTGRES_ROWS.insertInto(TOKEN_INSERT)} SELECT ${POSTGRES_ROWS.placeholders(TOKEN_INSERT)}
       WHERE EXISTS (SELECT 1 FROM sessions WHERE account_id = $${values.length + 1} AND hash = $${values.length + 2})`,
      [...values, token.accountId, token.sessionHash],
    );
    return made > 0;
  }

  async insertClient(client: OAuthClient): Promise<void> {
    await this.#count(POSTGRES_ROWS.insert(CLIENT_INSERT), POSTGRES_ROWS.values(CLIENT_INSERT, client));
  }

  async findClient(id: string): Promise<OAuthClient | undefined> {
    const [client] = await this.#read(CLIENT, `SELECT ${CLIENT.select} FROM oauth_clients WHERE id = $1`, [id]);
    return client;
  }

  listClients(): Promise<readonly OAuthClient[]> {
    return this.#read(CLIENT, `SELECT ${CLIENT.select} FROM oauth_clients ORDER BY created, id`, []);
  }

  /** Administration (`client remove`): what every account gave the client ends with it. */
  async removeClient(id: string, now: Micros): Promise<boolean> {
    const rows = await this.#rows(
      `WITH removed AS (DELETE FROM oauth_clients WHERE id = $1 RETURNING id),
            tokens_gone AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE client_id IN (SELECT id FROM removed)),
            refresh_gone AS (UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE client_id IN (SELECT id FROM removed)),
            consents_gone AS (DELETE FROM oauth_consents WHERE client_id IN (SELECT id FROM removed)),
            codes_gone AS (DELETE FROM oauth_codes WHERE client_id IN (SELECT id FROM removed))
       SELECT id FROM removed`,
      [id, now],
    );
    return rows.length > 0;
  }

  async findConsent(accountId: number, clientId: string): Promise<Scope | undefined> {
    const [scope] = await this.#read(
      CONSENT_SCOPE,
      `SELECT ${CONSENT_SCOPE.select} FROM oauth_consents WHERE account_id = $1 AND client_id = $2`,
      [accountId, clientId],
    );
    return scope;
  }

  async saveConsent(accountId: number, clientId: string, scope: Scope, now: Micros): Promise<void> {
    await this.#count(
      `${POSTGRES_ROWS.insert(CONSENT_INSERT)} ON CONFLICT (account_id, client_id) DO UPDATE SET scope = excluded.scope`,
      POSTGRES_ROWS.values(CONSENT_INSERT, { accountId, clientId, scope, now }),
    );
  }

  async insertCode(code: AuthorizationCode): Promise<void> {
    await this.#count(POSTGRES_ROWS.insert(CODE_INSERT), POSTGRES_ROWS.values(CODE_INSERT, code));
  }

  takeCode(key: SecretKey, now: Micros): Promise<TakenCode | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      // The row lock makes two simultaneous takers queue: the second sees the first one's used_at.
      const [taken] = await this.#read(
        TAKEN_CODE,
        `WITH before AS (SELECT ${TAKEN_CODE.select} FROM oauth_codes WHERE account_id = $1 AND hash = $2 FOR UPDATE),
              taken AS (UPDATE oauth_codes c SET used_at = COALESCE(c.used_at, $3) FROM before
                        WHERE c.account_id = $1 AND c.hash = before.hash)
         SELECT * FROM before`,
        [accountId, key.hash, now],
      );
      return taken;
    });
  }

  /** A maintenance sweep over every account (administration). */
  forgetCodes(expiredBefore: Micros): Promise<number> {
    return this.#count('DELETE FROM oauth_codes WHERE expires_at < $1', [expiredBefore]);
  }

  async insertIssuedToken(token: NewIssuedToken, now: Micros): Promise<void> {
    await this.#count(POSTGRES_ROWS.insert(TOKEN_INSERT), POSTGRES_ROWS.values(TOKEN_INSERT, { token, now }));
  }

  async insertRefreshToken(hash: string, grant: Omit<RefreshGrant, 'revoked'>, now: Micros): Promise<void> {
    await this.#count(POSTGRES_ROWS.insert(REFRESH_INSERT), POSTGRES_ROWS.values(REFRESH_INSERT, { hash, grant, now }));
  }

  findRefreshToken(key: SecretKey): Promise<RefreshGrant | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      const [grant] = await this.#read(
        REFRESH_GRANT,
        `SELECT ${REFRESH_GRANT.select} FROM refresh_tokens WHERE account_id = $1 AND hash = $2`,
        [accountId, key.hash],
      );
      return grant;
    });
  }

  async spendRefreshToken(key: SecretKey, now: Micros): Promise<boolean> {
    const spent = await this.#underAccountOf(key, async (accountId) =>
      foundIfAny(
        await this.#count(
          'UPDATE refresh_tokens SET revoked_at = $3 WHERE account_id = $1 AND hash = $2 AND revoked_at IS NULL',
          [accountId, key.hash, now],
        ),
      ),
    );
    return spent === true;
  }

  async revokeGrant(accountId: number, grantId: string, now: Micros): Promise<void> {
    await this.#rows(
      `WITH t AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3) WHERE account_id = $1 AND grant_id = $2),
            r AS (UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, $3) WHERE account_id = $1 AND grant_id = $2)
       SELECT 1`,
      [accountId, grantId, now],
    );
  }

  findIssuedToken(key: SecretKey): Promise<{ clientId: string | null; grantId: string | null } | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      const [issued] = await this.#read(
        ISSUED_TOKEN,
        `SELECT ${ISSUED_TOKEN.select} FROM tokens WHERE account_id = $1 AND hash = $2`,
        [accountId, key.hash],
      );
      return issued;
    });
  }

  listTokens(accountId: number): Promise<readonly TokenSummary[]> {
    return this.#read(
      TOKEN_SUMMARY,
      `SELECT ${TOKEN_SUMMARY.select} FROM tokens WHERE account_id = $1 ORDER BY created, hash`,
      [accountId],
    );
  }

  async revokeTokenById(id: string, now: Micros, accountId?: number): Promise<boolean> {
    // Hex digits sort before 'g': every hash starting with the prefix lies in [prefix, prefix || 'g').
    // 64 bits of prefix make a clash unheard of; should one occur, nothing is revoked rather than two.
    // Without an account this searches them all: administration (`token revoke --id`).
    const ofAccount = accountId === undefined ? '' : 'AND account_id = $4';
    const [row] = await this.#rows<{ revoked: BigintText }>(
      `WITH matches AS (SELECT account_id, hash FROM tokens WHERE hash >= $1 AND hash < $2 ${ofAccount}),
            revoked AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3)
                        WHERE (account_id, hash) IN (SELECT account_id, hash FROM matches) ${ofAccount}
                          AND (SELECT count(*) FROM matches) = 1 RETURNING 1)
       SELECT count(*) AS revoked FROM revoked`,
      accountId === undefined ? [id, `${id}g`, now] : [id, `${id}g`, now, accountId],
    );
    return row !== undefined && numberFromBigint(row.revoked) === 1;
  }

  revokeTokensByName(accountId: number, name: string, now: Micros): Promise<number> {
    return this.#count('UPDATE tokens SET revoked_at = $3 WHERE account_id = $1 AND name = $2 AND revoked_at IS NULL', [
      accountId,
      name,
      now,
    ]);
  }

  listConnectedApps(accountId: number): Promise<readonly ConnectedApp[]> {
    return this.#read(
      CONNECTED_APP,
      `SELECT ${CONNECTED_APP.select} FROM oauth_consents c JOIN oauth_clients k ON k.id = c.client_id
       WHERE c.account_id = $1 ORDER BY k.name, c.client_id`,
      [accountId],
    );
  }

  async revokeClientAccess(accountId: number, clientId: string, now: Micros): Promise<void> {
    await this.#rows(
      `WITH t AS (UPDATE tokens SET revoked_at = COALESCE(revoked_at, $3) WHERE account_id = $1 AND client_id = $2),
            r AS (UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, $3) WHERE account_id = $1 AND client_id = $2),
            c AS (DELETE FROM oauth_consents WHERE account_id = $1 AND client_id = $2)
       SELECT 1`,
      [accountId, clientId, now],
    );
  }

  /** One statement per account of the batch, so that none spans accounts. */
  async touchTokens(uses: readonly TokenUse[]): Promise<void> {
    const byAccount = new Map<number, TokenUse[]>();
    for (const use of uses) {
      const ofAccount = byAccount.get(use.accountId);
      if (ofAccount === undefined) byAccount.set(use.accountId, [use]);
      else ofAccount.push(use);
    }
    for (const [accountId, ofAccount] of byAccount) {
      await this.#count(
        `UPDATE tokens SET last_used = GREATEST(COALESCE(tokens.last_used, 0), used.at)
         FROM unnest($2::text[], $3::bigint[]) AS used (hash, at) WHERE tokens.account_id = $1 AND tokens.hash = used.hash`,
        [accountId, ofAccount.map((use) => use.hash), ofAccount.map((use) => use.at)],
      );
    }
  }

  // The throttle is keyed by username or address, never by account: `sign_in_failures` is distributed
  // by its own key (docs/operations.md, "Sharding by account"), and each statement names one key.
  async recordFailure(key: string, now: Micros): Promise<void> {
    await this.#count(POSTGRES_ROWS.insert(FAILURE_INSERT), POSTGRES_ROWS.values(FAILURE_INSERT, { key, now }));
  }

  async failuresSince(key: string, since: Micros): Promise<FailureCount> {
    const [failures] = await this.#read(
      FAILURES,
      `SELECT ${FAILURES.select} FROM sign_in_failures WHERE key = $1 AND at >= $2`,
      [storableText('key', key), since],
    );
    return failures ?? { count: 0, last: 0 };
  }

  async clearFailures(key: string): Promise<void> {
    await this.#count('DELETE FROM sign_in_failures WHERE key = $1', [storableText('key', key)]);
  }

  /** A maintenance sweep over every key (administration). */
  forgetFailures(before: Micros): Promise<number> {
    return this.#count('DELETE FROM sign_in_failures WHERE at < $1', [before]);
  }
}
