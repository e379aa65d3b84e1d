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
import { ACCOUNT_COLUMNS, ACCOUNT_COLUMNS_OF_A, accountFromRow, type AccountRow } from './account-rows.js';
import { scopeOf } from '../auth-columns.js';
import { clientFromRow, codeFromRow, type ClientRow, type CodeRow, type TokenSummaryRow } from './auth-rows.js';
import type { SqliteDatabase } from './connection.js';

/** Runs a job on the write connection, in turn with every other write of this store. */
export type OnWriter = <T>(job: () => T) => Promise<T>;

/**
 * The AuthStore on SQLite. Everything runs on the write connection through the store's queue:
 * these are small, rare statements, and reading where one writes sees every change at once.
 * A SQLite store is never distributed: a secret is found by its hash alone, and the account a
 * secret names (the route PostgreSQL takes, src/domain/secret-key.ts) is not needed here.
 */
export class SqliteAuthStore implements AuthStore {
  #statements: ReturnType<typeof prepare> | undefined;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly onWriter: OnWriter,
  ) {}

  #run<T>(job: (s: ReturnType<typeof prepare>) => T): Promise<T> {
    return this.onWriter(() => {
      this.#statements ??= prepare(this.db);
      return job(this.#statements);
    });
  }

  findCredentials(username: string): Promise<{ account: Account; passwordHash: string | null } | undefined> {
    return this.#run((s) => {
      const row = s.credentials.get(username);
      return row === undefined ? undefined : { account: accountFromRow(row), passwordHash: row.password_hash };
    });
  }

  setPassword(username: string, passwordHash: string, now: Micros): Promise<boolean> {
    return this.#run((s) =>
      this.db.transaction(() => {
        const id = s.setPassword.get(passwordHash, username);
        if (id === undefined) return false;
        s.revokeTokensOfSessionsOf.run(now, id);
        s.deleteSessionsOf.run(id);
        return true;
      })(),
    );
  }

  listAccounts(): Promise<readonly Account[]> {
    return this.#run((s) => s.accounts.all().map(accountFromRow));
  }

  createSession(hash: string, accountId: number, now: Micros): Promise<void> {
    return this.#run((s) => void s.createSession.run(hash, accountId, now, now));
  }

  findSession(key: SecretKey): Promise<Session | undefined> {
    return this.#run((s) => {
      const row = s.session.get(key.hash);
      return row === undefined
        ? undefined
        : { account: accountFromRow(row), created: row.session_created, lastSeen: row.last_seen };
    });
  }

  touchSession(key: SecretKey, now: Micros): Promise<void> {
    return this.#run((s) => void s.touchSession.run(now, key.hash));
  }

  deleteSession(key: SecretKey, now: Micros): Promise<void> {
    return this.#run((s) =>
      this.db.transaction(() => {
        s.revokeTokensOfGrant.run(now, key.hash);
        s.deleteSession.run(key.hash);
      })(),
    );
  }

  forgetSessions(seenBefore: Micros, now: Micros): Promise<number> {
    return this.#run((s) =>
      this.db.transaction(() => {
        s.revokeTokensOfIdleSessions.run(now, seenBefore);
        return s.forgetSessions.run(seenBefore).changes;
      })(),
    );
  }

  insertSessionToken(token: NewSessionToken, now: Micros): Promise<boolean> {
    return this.#run(
      (s) =>
        s.insertSessionToken.run(
          token.hash,
          token.accountId,
          token.name,
          now,
          token.expiresAt,
          token.sessionHash,
          token.accountId,
        ).changes > 0,
    );
  }

  insertClient(client: OAuthClient): Promise<void> {
    return this.#run(
      (s) =>
        void s.insertClient.run(
          client.id,
          client.name,
          client.secretHash,
          JSON.stringify(client.redirectUris),
          client.legacyImplicit ? 1 : 0,
          client.created,
        ),
    );
  }

  findClient(id: string): Promise<OAuthClient | undefined> {
    return this.#run((s) => {
      const row = s.client.get(id);
      return row === undefined ? undefined : clientFromRow(row);
    });
  }

  listClients(): Promise<readonly OAuthClient[]> {
    return this.#run((s) => s.clients.all().map(clientFromRow));
  }

  removeClient(id: string, now: Micros): Promise<boolean> {
    return this.#run((s) =>
      this.db.transaction(() => {
        if (s.deleteClient.run(id).changes === 0) return false;
        s.revokeTokensOfClient.run(now, id);
        s.revokeRefreshOfClient.run(now, id);
        s.deleteConsentsOfClient.run(id);
        s.deleteCodesOfClient.run(id);
        return true;
      })(),
    );
  }

  findConsent(accountId: number, clientId: string): Promise<Scope | undefined> {
    return this.#run((s) => {
      const scope = s.consent.get(accountId, clientId);
      return scope === undefined ? undefined : scopeOf(scope);
    });
  }

  saveConsent(accountId: number, clientId: string, scope: Scope, now: Micros): Promise<void> {
    return this.#run((s) => void s.saveConsent.run(accountId, clientId, scope, now));
  }

  insertCode(code: AuthorizationCode): Promise<void> {
    return this.#run(
      (s) =>
        void s.insertCode.run(
          code.hash,
          code.clientId,
          code.accountId,
          code.redirectUri,
          code.scope,
          code.challenge,
          code.expiresAt,
        ),
    );
  }

  takeCode(key: SecretKey, now: Micros): Promise<TakenCode | undefined> {
    return this.#run((s) =>
      this.db.transaction(() => {
        const row = s.code.get(key.hash);
        if (row === undefined) return undefined;
        if (row.used_at === null) s.useCode.run(now, key.hash);
        return { code: codeFromRow(row), usedBefore: row.used_at !== null };
      })(),
    );
  }

  forgetCodes(expiredBefore: Micros): Promise<number> {
    return this.#run((s) => s.forgetCodes.run(expiredBefore).changes);
  }

  insertIssuedToken(token: NewIssuedToken, now: Micros): Promise<void> {
    return this.#run(
      (s) =>
        void s.insertToken.run(
          token.hash,
          token.accountId,
          token.scope,
          token.name,
          now,
          token.expiresAt,
          token.clientId,
          token.grantId,
        ),
    );
  }

  insertRefreshToken(hash: string, grant: Omit<RefreshGrant, 'revoked'>, now: Micros): Promise<void> {
    return this.#run(
      (s) => void s.insertRefresh.run(hash, grant.accountId, grant.clientId, grant.scope, grant.grantId, now),
    );
  }

  findRefreshToken(key: SecretKey): Promise<RefreshGrant | undefined> {
    return this.#run((s) => {
      const row = s.refresh.get(key.hash);
      if (row === undefined) return undefined;
      return {
        accountId: row.account_id,
        clientId: row.client_id,
        scope: scopeOf(row.scope),
        grantId: row.grant_id,
        revoked: row.revoked_at !== null,
      };
    });
  }

  spendRefreshToken(key: SecretKey, now: Micros): Promise<boolean> {
    return this.#run((s) => s.spendRefresh.run(now, key.hash).changes > 0);
  }

  // A grant id is the hash of the code or session that began it: it names one account's grant alone.
  revokeGrant(_accountId: number, grantId: string, now: Micros): Promise<void> {
    return this.#run((s) =>
      this.db.transaction(() => {
        s.revokeTokensOfGrant.run(now, grantId);
        s.revokeRefreshOfGrant.run(now, grantId);
      })(),
    );
  }

  findIssuedToken(key: SecretKey): Promise<{ clientId: string | null; grantId: string | null } | undefined> {
    return this.#run((s) => {
      const row = s.issued.get(key.hash);
      return row === undefined ? undefined : { clientId: row.client_id, grantId: row.grant_id };
    });
  }

  listTokens(accountId: number): Promise<readonly TokenSummary[]> {
    return this.#run((s) => s.tokens.all(accountId).map(summaryFromRow));
  }

  revokeTokenById(id: string, now: Micros, accountId?: number): Promise<boolean> {
    return this.#run((s) =>
      this.db.transaction(() => {
        const hashes = s.hashesWithPrefix
          .all(id, `${id}g`)
          .filter((row) => accountId === undefined || row.account_id === accountId);
        const [only] = hashes;
        // 64 bits of prefix make a clash unheard of; should one occur, revoke nothing rather than two.
        if (only === undefined || hashes.length > 1) return false;
        s.revokeToken.run(now, only.hash);
        return true;
      })(),
    );
  }

  revokeTokensByName(accountId: number, name: string, now: Micros): Promise<number> {
    return this.#run((s) => s.revokeByName.run(now, accountId, name).changes);
  }

  listConnectedApps(accountId: number): Promise<readonly ConnectedApp[]> {
    return this.#run((s) =>
      s.connectedApps.all(accountId, accountId).map((row) => ({
        clientId: row.client_id,
        name: row.name,
        scope: scopeOf(row.scope),
        allowed: row.created,
        lastUsed: row.last_used,
      })),
    );
  }

  revokeClientAccess(accountId: number, clientId: string, now: Micros): Promise<void> {
    return this.#run((s) =>
      this.db.transaction(() => {
        s.revokeTokensOfAccountClient.run(now, accountId, clientId);
        s.revokeRefreshOfAccountClient.run(now, accountId, clientId);
        s.deleteConsent.run(accountId, clientId);
      })(),
    );
  }

  touchTokens(uses: readonly TokenUse[]): Promise<void> {
    return this.#run((s) =>
      this.db.transaction(() => {
        for (const use of uses) s.touchToken.run(use.at, use.hash);
      })(),
    );
  }

  recordFailure(key: string, now: Micros): Promise<void> {
    return this.#run((s) => void s.recordFailure.run(key, now));
  }

  failuresSince(key: string, since: Micros): Promise<FailureCount> {
    return this.#run((s) => {
      const row = s.failures.get(key, since);
      return { count: row?.count ?? 0, last: row?.last ?? 0 };
    });
  }

  clearFailures(key: string): Promise<void> {
    return this.#run((s) => void s.clearFailures.run(key));
  }

  forgetFailures(before: Micros): Promise<number> {
    return this.#run((s) => s.forgetFailures.run(before).changes);
  }
}

function summaryFromRow(row: TokenSummaryRow): TokenSummary {
  return {
    id: tokenIdOf(row.hash),
    name: row.name,
    scope: scopeOf(row.scope),
    clientId: row.client_id,
    created: row.created,
    lastUsed: row.last_used,
    expiresAt: row.expires_at,
    revoked: row.revoked_at !== null,
    sessionBound: row.client_id === null && row.grant_id !== null,
  };
}

interface SessionRow extends AccountRow {
  readonly session_created: number;
  readonly last_seen: number;
}

interface RefreshRow {
  readonly account_id: number;
  readonly client_id: string;
  readonly scope: string;
  readonly grant_id: string;
  readonly revoked_at: number | null;
}

function prepare(db: SqliteDatabase) {
  return {
    credentials: db.prepare<[username: string], AccountRow & { password_hash: string | null }>(
      `SELECT ${ACCOUNT_COLUMNS}, password_hash FROM accounts WHERE username = ?`,
    ),
    setPassword: db
      .prepare<[hash: string, username: string], number>(
        'UPDATE accounts SET password_hash = ? WHERE username = ? RETURNING id',
      )
      .pluck(),
    deleteSessionsOf: db.prepare<[accountId: number]>('DELETE FROM sessions WHERE account_id = ?'),
    revokeTokensOfSessionsOf: db.prepare<[now: number, accountId: number]>(
      `UPDATE tokens SET revoked_at = coalesce(revoked_at, ?)
       WHERE grant_id IN (SELECT hash FROM sessions WHERE account_id = ?)`,
    ),
    revokeTokensOfIdleSessions: db.prepare<[now: number, before: number]>(
      `UPDATE tokens SET revoked_at = coalesce(revoked_at, ?)
       WHERE grant_id IN (SELECT hash FROM sessions WHERE last_seen < ?)`,
    ),
    insertSessionToken: db.prepare<
      [
        hash: string,
        accountId: number,
        name: string,
        created: number,
        expiresAt: number,
        sessionHash: string,
        sessionAccountId: number,
      ]
    >(
      `INSERT INTO tokens (hash, account_id, scope, name, created, expires_at, client_id, grant_id)
       SELECT ?, ?, 'write', ?, ?, ?, NULL, hash FROM sessions WHERE hash = ? AND account_id = ?`,
    ),
    connectedApps: db.prepare<
      [accountId: number, sameAccountId: number],
      { client_id: string; name: string; scope: string; created: number; last_used: number | null }
    >(
      `SELECT c.client_id, k.name, c.scope, c.created,
              (SELECT max(t.last_used) FROM tokens t WHERE t.account_id = ? AND t.client_id = c.client_id) AS last_used
       FROM oauth_consents c JOIN oauth_clients k ON k.id = c.client_id
       WHERE c.account_id = ? ORDER BY k.name, c.client_id`,
    ),
    accounts: db.prepare<[], AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY username`),
    createSession: db.prepare<[hash: string, accountId: number, created: number, lastSeen: number]>(
      'INSERT INTO sessions (hash, account_id, created, last_seen) VALUES (?, ?, ?, ?)',
    ),
    session: db.prepare<[hash: string], SessionRow>(
      `SELECT ${ACCOUNT_COLUMNS_OF_A}, s.created AS session_created, s.last_seen
       FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.hash = ?`,
    ),
    touchSession: db.prepare<[now: number, hash: string]>(
      'UPDATE sessions SET last_seen = max(last_seen, ?) WHERE hash = ?',
    ),
    deleteSession: db.prepare<[hash: string]>('DELETE FROM sessions WHERE hash = ?'),
    forgetSessions: db.prepare<[before: number]>('DELETE FROM sessions WHERE last_seen < ?'),
    insertClient: db.prepare<
      [id: string, name: string, secretHash: string | null, uris: string, legacy: number, created: number]
    >(
      'INSERT INTO oauth_clients (id, name, secret_hash, redirect_uris, legacy_implicit, created) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    client: db.prepare<[id: string], ClientRow>('SELECT * FROM oauth_clients WHERE id = ?'),
    clients: db.prepare<[], ClientRow>('SELECT * FROM oauth_clients ORDER BY created, id'),
    deleteClient: db.prepare<[id: string]>('DELETE FROM oauth_clients WHERE id = ?'),
    revokeTokensOfClient: db.prepare<[now: number, clientId: string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE client_id = ?',
    ),
    revokeRefreshOfClient: db.prepare<[now: number, clientId: string]>(
      'UPDATE refresh_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE client_id = ?',
    ),
    deleteConsentsOfClient: db.prepare<[clientId: string]>('DELETE FROM oauth_consents WHERE client_id = ?'),
    deleteCodesOfClient: db.prepare<[clientId: string]>('DELETE FROM oauth_codes WHERE client_id = ?'),
    consent: db
      .prepare<[accountId: number, clientId: string], string>(
        'SELECT scope FROM oauth_consents WHERE account_id = ? AND client_id = ?',
      )
      .pluck(),
    saveConsent: db.prepare<[accountId: number, clientId: string, scope: string, now: number]>(
      `INSERT INTO oauth_consents (account_id, client_id, scope, created) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, client_id) DO UPDATE SET scope = excluded.scope`,
    ),
    deleteConsent: db.prepare<[accountId: number, clientId: string]>(
      'DELETE FROM oauth_consents WHERE account_id = ? AND client_id = ?',
    ),
    insertCode: db.prepare<
      [
        hash: string,
        clientId: string,
        accountId: number,
        redirectUri: string,
        scope: string,
        challenge: string | null,
        expiresAt: number,
      ]
    >(
      'INSERT INTO oauth_codes (hash, client_id, account_id, redirect_uri, scope, challenge, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    code: db.prepare<[hash: string], CodeRow>('SELECT * FROM oauth_codes WHERE hash = ?'),
    useCode: db.prepare<[now: number, hash: string]>('UPDATE oauth_codes SET used_at = ? WHERE hash = ?'),
    forgetCodes: db.prepare<[before: number]>('DELETE FROM oauth_codes WHERE expires_at < ?'),
    insertToken: db.prepare<
      [
        hash: string,
        accountId: number,
        scope: string,
        name: string,
        created: number,
        expiresAt: number | null,
        clientId: string | null,
        grantId: string | null,
      ]
    >(
      `INSERT INTO tokens (hash, account_id, scope, name, created, expires_at, client_id, grant_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertRefresh: db.prepare<
      [hash: string, accountId: number, clientId: string, scope: string, grantId: string, now: number]
    >('INSERT INTO refresh_tokens (hash, account_id, client_id, scope, grant_id, created) VALUES (?, ?, ?, ?, ?, ?)'),
    refresh: db.prepare<[hash: string], RefreshRow>(
      'SELECT account_id, client_id, scope, grant_id, revoked_at FROM refresh_tokens WHERE hash = ?',
    ),
    spendRefresh: db.prepare<[now: number, hash: string]>(
      'UPDATE refresh_tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL',
    ),
    revokeTokensOfGrant: db.prepare<[now: number, grantId: string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE grant_id = ?',
    ),
    revokeRefreshOfGrant: db.prepare<[now: number, grantId: string]>(
      'UPDATE refresh_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE grant_id = ?',
    ),
    issued: db.prepare<[hash: string], { client_id: string | null; grant_id: string | null }>(
      'SELECT client_id, grant_id FROM tokens WHERE hash = ?',
    ),
    tokens: db.prepare<[accountId: number], TokenSummaryRow>(
      `SELECT hash, name, scope, client_id, grant_id, created, last_used, expires_at, revoked_at
       FROM tokens WHERE account_id = ? ORDER BY created, hash`,
    ),
    // Hex digits sort before 'g': every hash starting with the prefix lies in [prefix, prefix || 'g').
    hashesWithPrefix: db.prepare<[from: string, to: string], { hash: string; account_id: number }>(
      'SELECT hash, account_id FROM tokens WHERE hash >= ? AND hash < ?',
    ),
    revokeToken: db.prepare<[now: number, hash: string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE hash = ?',
    ),
    revokeByName: db.prepare<[now: number, accountId: number, name: string]>(
      'UPDATE tokens SET revoked_at = ? WHERE account_id = ? AND name = ? AND revoked_at IS NULL',
    ),
    revokeTokensOfAccountClient: db.prepare<[now: number, accountId: number, clientId: string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE account_id = ? AND client_id = ?',
    ),
    revokeRefreshOfAccountClient: db.prepare<[now: number, accountId: number, clientId: string]>(
      'UPDATE refresh_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE account_id = ? AND client_id = ?',
    ),
    touchToken: db.prepare<[at: number, hash: string]>(
      'UPDATE tokens SET last_used = max(coalesce(last_used, 0), ?) WHERE hash = ?',
    ),
    recordFailure: db.prepare<[key: string, at: number]>('INSERT INTO sign_in_failures (key, at) VALUES (?, ?)'),
    failures: db.prepare<[key: string, since: number], { count: number; last: number | null }>(
      'SELECT count(*) AS count, max(at) AS last FROM sign_in_failures WHERE key = ? AND at >= ?',
    ),
    clearFailures: db.prepare<[key: string]>('DELETE FROM sign_in_failures WHERE key = ?'),
    forgetFailures: db.prepare<[before: number]>('DELETE FROM sign_in_failures WHERE at < ?'),
  };
}
