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
  TOKEN_OWNER,
  TOKEN_SUMMARY,
} from '../auth/rows.js';
import type { AuthStore, TakenCode, TokenUse } from '../auth-store.js';
import type { DriverRow } from '../auth/shapes.js';
import { decoding, prepareInsert, SQLITE_ROWS } from './auth-rows.js';
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
    return this.#run((s) => s.credentials.get(username));
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
    return this.#run((s) => s.accounts.all());
  }

  createSession(hash: string, accountId: number, now: Micros): Promise<void> {
    return this.#run((s) => void s.createSession({ hash, accountId, now }));
  }

  findSession(key: SecretKey): Promise<Session | undefined> {
    return this.#run((s) => s.session.get(key.hash));
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
    return this.#run((s) => s.insertSessionToken(token, now) > 0);
  }

  insertClient(client: OAuthClient): Promise<void> {
    return this.#run((s) => void s.insertClient(client));
  }

  findClient(id: string): Promise<OAuthClient | undefined> {
    return this.#run((s) => s.client.get(id));
  }

  listClients(): Promise<readonly OAuthClient[]> {
    return this.#run((s) => s.clients.all());
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
    return this.#run((s) => s.consent.get(accountId, clientId));
  }

  saveConsent(accountId: number, clientId: string, scope: Scope, now: Micros): Promise<void> {
    return this.#run((s) => void s.saveConsent({ accountId, clientId, scope, now }));
  }

  insertCode(code: AuthorizationCode): Promise<void> {
    return this.#run((s) => void s.insertCode(code));
  }

  takeCode(key: SecretKey, now: Micros): Promise<TakenCode | undefined> {
    return this.#run((s) =>
      this.db.transaction(() => {
        const taken = s.code.get(key.hash);
        if (taken !== undefined && !taken.usedBefore) s.useCode.run(now, key.hash);
        return taken;
      })(),
    );
  }

  forgetCodes(expiredBefore: Micros): Promise<number> {
    return this.#run((s) => s.forgetCodes.run(expiredBefore).changes);
  }

  insertIssuedToken(token: NewIssuedToken, now: Micros): Promise<void> {
    return this.#run((s) => void s.insertToken({ token, now }));
  }

  insertRefreshToken(hash: string, grant: Omit<RefreshGrant, 'revoked'>, now: Micros): Promise<void> {
    return this.#run((s) => void s.insertRefresh({ hash, grant, now }));
  }

  findRefreshToken(key: SecretKey): Promise<RefreshGrant | undefined> {
    return this.#run((s) => s.refresh.get(key.hash));
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
    return this.#run((s) => s.issued.get(key.hash));
  }

  listTokens(accountId: number): Promise<readonly TokenSummary[]> {
    return this.#run((s) => s.tokens.all(accountId));
  }

  revokeTokenById(id: string, now: Micros, accountId?: number): Promise<boolean> {
    return this.#run((s) =>
      this.db.transaction(() => {
        const owned = s.tokensWithPrefix
          .all(id, `${id}g`)
          .filter((token) => accountId === undefined || token.accountId === accountId);
        const [only] = owned;
        // 64 bits of prefix make a clash unheard of; should one occur, revoke nothing rather than two.
        if (only === undefined || owned.length > 1) return false;
        s.revokeToken.run(now, only.hash);
        return true;
      })(),
    );
  }

  revokeTokensByName(accountId: number, name: string, now: Micros): Promise<number> {
    return this.#run((s) => s.revokeByName.run(now, accountId, name).changes);
  }

  listConnectedApps(accountId: number): Promise<readonly ConnectedApp[]> {
    return this.#run((s) => s.connectedApps.all(accountId));
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
    return this.#run((s) => void s.recordFailure({ key, now }));
  }

  failuresSince(key: string, since: Micros): Promise<FailureCount> {
    return this.#run((s) => s.failures.get(key, since) ?? { count: 0, last: 0 });
  }

  clearFailures(key: string): Promise<void> {
    return this.#run((s) => void s.clearFailures.run(key));
  }

  forgetFailures(before: Micros): Promise<number> {
    return this.#run((s) => s.forgetFailures.run(before).changes);
  }
}

/** The web app's token is made only while its session exists, in the same statement. */
function prepareSessionTokenInsert(db: SqliteDatabase): (token: NewSessionToken, now: Micros) => number {
  const statement = db.prepare(
    `${SQLITE_ROWS.insertInto(TOKEN_INSERT)} SELECT ${SQLITE_ROWS.placeholders(TOKEN_INSERT)}
     WHERE EXISTS (SELECT 1 FROM sessions WHERE hash = ? AND account_id = ?)`,
  );
  return (token, now) =>
    statement.run(...SQLITE_ROWS.values(TOKEN_INSERT, { token, now }), token.sessionHash, token.accountId).changes;
}

function prepare(db: SqliteDatabase) {
  return {
    credentials: decoding(
      CREDENTIALS,
      db.prepare<[username: string], DriverRow>(`SELECT ${CREDENTIALS.select} FROM accounts WHERE username = ?`),
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
    insertSessionToken: prepareSessionTokenInsert(db),
    connectedApps: decoding(
      CONNECTED_APP,
      db.prepare<[accountId: number], DriverRow>(
        `SELECT ${CONNECTED_APP.select} FROM oauth_consents c JOIN oauth_clients k ON k.id = c.client_id
         WHERE c.account_id = ? ORDER BY k.name, c.client_id`,
      ),
    ),
    accounts: decoding(ACCOUNT, db.prepare<[], DriverRow>(`SELECT ${ACCOUNT.select} FROM accounts ORDER BY username`)),
    createSession: prepareInsert(db, SESSION_INSERT),
    session: decoding(
      SESSION,
      db.prepare<[hash: string], DriverRow>(
        `SELECT ${SESSION.select} FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.hash = ?`,
      ),
    ),
    touchSession: db.prepare<[now: number, hash: string]>(
      'UPDATE sessions SET last_seen = max(last_seen, ?) WHERE hash = ?',
    ),
    deleteSession: db.prepare<[hash: string]>('DELETE FROM sessions WHERE hash = ?'),
    forgetSessions: db.prepare<[before: number]>('DELETE FROM sessions WHERE last_seen < ?'),
    insertClient: prepareInsert(db, CLIENT_INSERT),
    client: decoding(
      CLIENT,
      db.prepare<[id: string], DriverRow>(`SELECT ${CLIENT.select} FROM oauth_clients WHERE id = ?`),
    ),
    clients: decoding(
      CLIENT,
      db.prepare<[], DriverRow>(`SELECT ${CLIENT.select} FROM oauth_clients ORDER BY created, id`),
    ),
    deleteClient: db.prepare<[id: string]>('DELETE FROM oauth_clients WHERE id = ?'),
    revokeTokensOfClient: db.prepare<[now: number, clientId: string]>(
      'UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE client_id = ?',
    ),
    revokeRefreshOfClient: db.prepare<[now: number, clientId: string]>(
      'UPDATE refresh_tokens SET revoked_at = coalesce(revoked_at, ?) WHERE client_id = ?',
    ),
    deleteConsentsOfClient: db.prepare<[clientId: string]>('DELETE FROM oauth_consents WHERE client_id = ?'),
    deleteCodesOfClient: db.prepare<[clientId: string]>('DELETE FROM oauth_codes WHERE client_id = ?'),
    consent: decoding(
      CONSENT_SCOPE,
      db.prepare<[accountId: number, clientId: string], DriverRow>(
        `SELECT ${CONSENT_SCOPE.select} FROM oauth_consents WHERE account_id = ? AND client_id = ?`,
      ),
    ),
    saveConsent: prepareInsert(
      db,
      CONSENT_INSERT,
      ' ON CONFLICT (account_id, client_id) DO UPDATE SET scope = excluded.scope',
    ),
    deleteConsent: db.prepare<[accountId: number, clientId: string]>(
      'DELETE FROM oauth_consents WHERE account_id = ? AND client_id = ?',
    ),
    insertCode: prepareInsert(db, CODE_INSERT),
    code: decoding(
      TAKEN_CODE,
      db.prepare<[hash: string], DriverRow>(`SELECT ${TAKEN_CODE.select} FROM oauth_codes WHERE hash = ?`),
    ),
    useCode: db.prepare<[now: number, hash: string]>('UPDATE oauth_codes SET used_at = ? WHERE hash = ?'),
    forgetCodes: db.prepare<[before: number]>('DELETE FROM oauth_codes WHERE expires_at < ?'),
    insertToken: prepareInsert(db, TOKEN_INSERT),
    insertRefresh: prepareInsert(db, REFRESH_INSERT),
    refresh: decoding(
      REFRESH_GRANT,
      db.prepare<[hash: string], DriverRow>(`SELECT ${REFRESH_GRANT.select} FROM refresh_tokens WHERE hash = ?`),
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
    issued: decoding(
      ISSUED_TOKEN,
      db.prepare<[hash: string], DriverRow>(`SELECT ${ISSUED_TOKEN.select} FROM tokens WHERE hash = ?`),
    ),
    tokens: decoding(
      TOKEN_SUMMARY,
      db.prepare<[accountId: number], DriverRow>(
        `SELECT ${TOKEN_SUMMARY.select} FROM tokens WHERE account_id = ? ORDER BY created, hash`,
      ),
    ),
    // Hex digits sort before 'g': every hash starting with the prefix lies in [prefix, prefix || 'g').
    tokensWithPrefix: decoding(
      TOKEN_OWNER,
      db.prepare<[from: string, to: string], DriverRow>(
        `SELECT ${TOKEN_OWNER.select} FROM tokens WHERE hash >= ? AND hash < ?`,
      ),
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
    recordFailure: prepareInsert(db, FAILURE_INSERT),
    failures: decoding(
      FAILURES,
      db.prepare<[key: string, since: number], DriverRow>(
        `SELECT ${FAILURES.select} FROM sign_in_failures WHERE key = ? AND at >= ?`,
      ),
    ),
    clearFailures: db.prepare<[key: string]>('DELETE FROM sign_in_failures WHERE key = ?'),
    forgetFailures: db.prepare<[before: number]>('DELETE FROM sign_in_failures WHERE at < ?'),
  };
}
