import type pg from 'pg';
import type { Account, Scope } from '../../domain/account.js';
import {
  tokenIdOf,
  type AuthorizationCode,
  type ConnectedApp,
  type FailureCount,
  type NewIssuedToken,
  type NewSessionToken,
  type OAuthClient,
  type RefreshGrant,
  type Session,
  type TokenSummary,
} from '../../domain/auth.js';
import type { SecretKey } from '../../domain/secret-key.js';
import type { Micros } from '../../domain/time.js';
import type { AuthStore, TakenCode, TokenUse } from '../auth-store.js';
import { ACCOUNT_COLUMNS, accountFromRow, type AccountRow } from './account-rows.js';
import { scopeOf } from '../auth-columns.js';
import { clientFromRow, codeFromRow, type ClientRow, type CodeRow } from './auth-rows.js';
import { accountIdByName } from './accounts.js';
import { guarded } from './errors.js';
import { foundIfAny, underAccountOfSecret } from './secret-route.js';
import { storableText } from './text.js';
import { microsOrNull, numberFromBigint, type BigintText } from './values.js';

const ACCOUNT_COLUMNS_OF_A = ACCOUNT_COLUMNS.split(', ')
  .map((column) => `a.${column}`)
  .join(', ');

interface TokenSummaryRow {
  readonly hash: string;
  readonly name: string;
  readonly scope: string;
  readonly client_id: string | null;
  readonly grant_id: string | null;
  readonly created: BigintText;
  readonly last_used: BigintText | null;
  readonly expires_at: BigintText | null;
  readonly revoked_at: BigintText | null;
}

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

  async #count(sql: string, params: readonly unknown[]): Promise<number> {
    return guarded(async () => (await this.pool.query(sql, [...params])).rowCount ?? 0);
  }

  #accountIdByName(username: string): Promise<number | undefined> {
    return guarded(() => accountIdByName(this.pool, username));
  }

  async findCredentials(username: string): Promise<{ account: Account; passwordHash: string | null } | undefined> {
    const id = await this.#accountIdByName(username);
    if (id === undefined) return undefined;
    const [row] = await this.#rows<AccountRow & { password_hash: string | null }>(
      `SELECT ${ACCOUNT_COLUMNS}, password_hash FROM accounts WHERE id = $1`,
      [id],
    );
    return row === undefined ? undefined : { account: accountFromRow(row), passwordHash: row.password_hash };
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
  async listAccounts(): Promise<readonly Account[]> {
    const rows = await this.#rows<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY username`, []);
    return rows.map(accountFromRow);
  }

  async createSession(hash: string, accountId: number, now: Micros): Promise<void> {
    await this.#count('INSERT INTO sessions (hash, account_id, created, last_seen) VALUES ($1, $2, $3, $3)', [
      hash,
      accountId,
      now,
    ]);
  }

  /** Runs `attempt` under the account that holds the secret (secret-route.ts). */
  #underAccountOf<T>(key: SecretKey, attempt: (accountId: number) => Promise<T | undefined>): Promise<T | undefined> {
    return guarded(() => underAccountOfSecret(this.pool, key, attempt));
  }

  findSession(key: SecretKey): Promise<Session | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      const [row] = await this.#rows<AccountRow & { session_created: BigintText; last_seen: BigintText }>(
        `SELECT ${ACCOUNT_COLUMNS_OF_A}, s.created AS session_created, s.last_seen
         FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.account_id = $1 AND s.hash = $2`,
        [accountId, key.hash],
      );
      if (row === undefined) return undefined;
      return {
        account: accountFromRow(row),
        created: numberFromBigint(row.session_created),
        lastSeen: numberFromBigint(row.last_seen),
      };
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
    return (
      (await this.#count(
        `INSERT INTO tokens (hash, account_id, scope, name, created, expires_at, client_id, grant_id)
         SELECT $1, $2, 'write', $3, $4, $5, NULL, hash FROM sessions WHERE hash = $6 AND account_id = $2`,
        [token.hash, token.accountId, storableText('name', token.name), now, token.expiresAt, token.sessionHash],
      )) > 0
    );
  }

  async insertClient(client: OAuthClient): Promise<void> {
    await this.#count(
      'INSERT INTO oauth_clients (id, name, secret_hash, redirect_uris, legacy_implicit, created) VALUES ($1, $2, $3, $4, $5, $6)',
      [
        client.id,
        storableText('name', client.name),
        client.secretHash,
        JSON.stringify(client.redirectUris),
        client.legacyImplicit,
        client.created,
      ],
    );
  }

  async findClient(id: string): Promise<OAuthClient | undefined> {
    const [row] = await this.#rows<ClientRow>('SELECT * FROM oauth_clients WHERE id = $1', [id]);
    return row === undefined ? undefined : clientFromRow(row);
  }

  async listClients(): Promise<readonly OAuthClient[]> {
    return (await this.#rows<ClientRow>('SELECT * FROM oauth_clients ORDER BY created, id', [])).map(clientFromRow);
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
    const [row] = await this.#rows<{ scope: string }>(
      'SELECT scope FROM oauth_consents WHERE account_id = $1 AND client_id = $2',
      [accountId, clientId],
    );
    return row === undefined ? undefined : scopeOf(row.scope);
  }

  async saveConsent(accountId: number, clientId: string, scope: Scope, now: Micros): Promise<void> {
    await this.#count(
      `INSERT INTO oauth_consents (account_id, client_id, scope, created) VALUES ($1, $2, $3, $4)
       ON CONFLICT (account_id, client_id) DO UPDATE SET scope = excluded.scope`,
      [accountId, clientId, scope, now],
    );
  }

  async insertCode(code: AuthorizationCode): Promise<void> {
    await this.#count(
      `INSERT INTO oauth_codes (hash, client_id, account_id, redirect_uri, scope, challenge, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [code.hash, code.clientId, code.accountId, code.redirectUri, code.scope, code.challenge, code.expiresAt],
    );
  }

  takeCode(key: SecretKey, now: Micros): Promise<TakenCode | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      // The row lock makes two simultaneous takers queue: the second sees the first one's used_at.
      const [row] = await this.#rows<CodeRow>(
        `WITH before AS (SELECT * FROM oauth_codes WHERE account_id = $1 AND hash = $2 FOR UPDATE),
              taken AS (UPDATE oauth_codes c SET used_at = COALESCE(c.used_at, $3) FROM before
                        WHERE c.account_id = $1 AND c.hash = before.hash)
         SELECT * FROM before`,
        [accountId, key.hash, now],
      );
      return row === undefined ? undefined : { code: codeFromRow(row), usedBefore: row.used_at !== null };
    });
  }

  /** A maintenance sweep over every account (administration). */
  forgetCodes(expiredBefore: Micros): Promise<number> {
    return this.#count('DELETE FROM oauth_codes WHERE expires_at < $1', [expiredBefore]);
  }

  async insertIssuedToken(token: NewIssuedToken, now: Micros): Promise<void> {
    await this.#count(
      `INSERT INTO tokens (hash, account_id, scope, name, created, expires_at, client_id, grant_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        token.hash,
        token.accountId,
        token.scope,
        storableText('name', token.name),
        now,
        token.expiresAt,
        token.clientId,
        token.grantId,
      ],
    );
  }

  async insertRefreshToken(hash: string, grant: Omit<RefreshGrant, 'revoked'>, now: Micros): Promise<void> {
    await this.#count(
      'INSERT INTO refresh_tokens (hash, account_id, client_id, scope, grant_id, created) VALUES ($1, $2, $3, $4, $5, $6)',
      [hash, grant.accountId, grant.clientId, grant.scope, grant.grantId, now],
    );
  }

  findRefreshToken(key: SecretKey): Promise<RefreshGrant | undefined> {
    return this.#underAccountOf(key, async (accountId) => {
      const [row] = await this.#rows<{
        client_id: string;
        scope: string;
        grant_id: string;
        revoked_at: BigintText | null;
      }>('SELECT client_id, scope, grant_id, revoked_at FROM refresh_tokens WHERE account_id = $1 AND hash = $2', [
        accountId,
        key.hash,
      ]);
      if (row === undefined) return undefined;
      return {
        accountId,
        clientId: row.client_id,
        scope: scopeOf(row.scope),
        grantId: row.grant_id,
        revoked: row.revoked_at !== null,
      };
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
      const [row] = await this.#rows<{ client_id: string | null; grant_id: string | null }>(
        'SELECT client_id, grant_id FROM tokens WHERE account_id = $1 AND hash = $2',
        [accountId, key.hash],
      );
      return row === undefined ? undefined : { clientId: row.client_id, grantId: row.grant_id };
    });
  }

  async listTokens(accountId: number): Promise<readonly TokenSummary[]> {
    const rows = await this.#rows<TokenSummaryRow>(
      `SELECT hash, name, scope, client_id, grant_id, created, last_used, expires_at, revoked_at
       FROM tokens WHERE account_id = $1 ORDER BY created, hash`,
      [accountId],
    );
    return rows.map((row) => ({
      id: tokenIdOf(row.hash),
      name: row.name,
      scope: scopeOf(row.scope),
      clientId: row.client_id,
      created: numberFromBigint(row.created),
      lastUsed: microsOrNull(row.last_used),
      expiresAt: microsOrNull(row.expires_at),
      revoked: row.revoked_at !== null,
      sessionBound: row.client_id === null && row.grant_id !== null,
    }));
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

  async listConnectedApps(accountId: number): Promise<readonly ConnectedApp[]> {
    const rows = await this.#rows<{
      client_id: string;
      name: string;
      scope: string;
      created: BigintText;
      last_used: BigintText | null;
    }>(
      `SELECT c.client_id, k.name, c.scope, c.created,
              (SELECT max(t.last_used) FROM tokens t WHERE t.account_id = $1 AND t.client_id = c.client_id) AS last_used
       FROM oauth_consents c JOIN oauth_clients k ON k.id = c.client_id
       WHERE c.account_id = $1 ORDER BY k.name, c.client_id`,
      [accountId],
    );
    return rows.map((row) => ({
      clientId: row.client_id,
      name: row.name,
      scope: scopeOf(row.scope),
      allowed: numberFromBigint(row.created),
      lastUsed: microsOrNull(row.last_used),
    }));
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
    await this.#count('INSERT INTO sign_in_failures (key, at) VALUES ($1, $2)', [storableText('key', key), now]);
  }

  async failuresSince(key: string, since: Micros): Promise<FailureCount> {
    const [row] = await this.#rows<{ count: BigintText; last: BigintText | null }>(
      'SELECT count(*) AS count, max(at) AS last FROM sign_in_failures WHERE key = $1 AND at >= $2',
      [storableText('key', key), since],
    );
    return { count: row === undefined ? 0 : numberFromBigint(row.count), last: microsOrNull(row?.last ?? null) ?? 0 };
  }

  async clearFailures(key: string): Promise<void> {
    await this.#count('DELETE FROM sign_in_failures WHERE key = $1', [storableText('key', key)]);
  }

  /** A maintenance sweep over every key (administration). */
  forgetFailures(before: Micros): Promise<number> {
    return this.#count('DELETE FROM sign_in_failures WHERE at < $1', [before]);
  }
}
