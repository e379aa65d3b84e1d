import type { Account, Scope } from '../domain/account.js';
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
} from '../domain/auth.js';
import type { SecretKey } from '../domain/secret-key.js';
import type { Micros } from '../domain/time.js';

/** A token's use: its account, its hash and when. */
export interface TokenUse {
  readonly accountId: number;
  readonly hash: string;
  readonly at: Micros;
}

/** The outcome of taking a code: what it was, and whether someone had taken it before. */
export interface TakenCode {
  readonly code: AuthorizationCode;
  readonly usedBefore: boolean;
}

/**
 * Storage of sign-in and OAuth: passwords, sessions, clients, codes, refresh tokens, consents,
 * the sign-in throttle, and the token management the CLI and the web app do. Every secret is
 * kept as a hash only. Everything lives in the store, so processes sharing one database share it.
 */
export interface AuthStore {
  /** The account and its password hash (null when it has none), by username. */
  findCredentials(
    username: string,
  ): Promise<{ readonly account: Account; readonly passwordHash: string | null } | undefined>;
  /**
   * Sets the password and ends every session of the account, with the web app's tokens of those
   * sessions, together. False: no such user.
   */
  setPassword(username: string, passwordHash: string, now: Micros): Promise<boolean>;
  /** Every account (administration: `user list`). */
  listAccounts(): Promise<readonly Account[]>;

  createSession(hash: string, accountId: number, now: Micros): Promise<void>;
  findSession(key: SecretKey): Promise<Session | undefined>;
  touchSession(key: SecretKey, now: Micros): Promise<void>;
  /** Ends the session and revokes the web app's tokens made for it, together. */
  deleteSession(key: SecretKey, now: Micros): Promise<void>;
  /**
   * Sessions idle since before `seenBefore` are deleted with their tokens; returns how many. A
   * maintenance sweep over every account (administration).
   */
  forgetSessions(seenBefore: Micros, now: Micros): Promise<number>;
  /**
   * A token for the web app, bound to the session (its `grantId` is the session's hash): made only
   * while the session exists, in the same statement; false when it does not.
   */
  insertSessionToken(token: NewSessionToken, now: Micros): Promise<boolean>;

  insertClient(client: OAuthClient): Promise<void>;
  findClient(id: string): Promise<OAuthClient | undefined>;
  listClients(): Promise<readonly OAuthClient[]>;
  /**
   * Deletes the client and revokes every token and refresh token it holds, together: the one
   * statement of an account-facing feature that spans accounts (administration, rare).
   */
  removeClient(id: string, now: Micros): Promise<boolean>;

  /** The scope the account allowed the client, if it did. */
  findConsent(accountId: number, clientId: string): Promise<Scope | undefined>;
  saveConsent(accountId: number, clientId: string, scope: Scope, now: Micros): Promise<void>;

  insertCode(code: AuthorizationCode): Promise<void>;
  /** Marks the code used and returns it; `usedBefore` when it had been taken already. */
  takeCode(key: SecretKey, now: Micros): Promise<TakenCode | undefined>;
  /** Codes past their life are deleted; returns how many. A sweep over every account (administration). */
  forgetCodes(expiredBefore: Micros): Promise<number>;

  insertIssuedToken(token: NewIssuedToken, now: Micros): Promise<void>;
  insertRefreshToken(hash: string, grant: Omit<RefreshGrant, 'revoked'>, now: Micros): Promise<void>;
  findRefreshToken(key: SecretKey): Promise<RefreshGrant | undefined>;
  /** Revokes the refresh token if it is still live; false when it was not (already used or revoked). */
  spendRefreshToken(key: SecretKey, now: Micros): Promise<boolean>;
  /** Revokes every access and refresh token of the account's grant. */
  revokeGrant(accountId: number, grantId: string, now: Micros): Promise<void>;
  /** The access token's client and grant, for RFC 7009 revocation. */
  findIssuedToken(
    key: SecretKey,
  ): Promise<{ readonly clientId: string | null; readonly grantId: string | null } | undefined>;

  listTokens(accountId: number): Promise<readonly TokenSummary[]>;
  /**
   * Revokes the token with that id (of that account, when given); false when there is none.
   * Without an account it searches every account (administration: `token revoke --id`).
   */
  revokeTokenById(id: string, now: Micros, accountId?: number): Promise<boolean>;
  /** Revokes every live token of the account with that name; returns how many. */
  revokeTokensByName(accountId: number, name: string, now: Micros): Promise<number>;
  /** The clients the account allowed (its consents), with when one of their tokens was last used. */
  listConnectedApps(accountId: number): Promise<readonly ConnectedApp[]>;
  /** Revokes every token and refresh token the account gave the client, and forgets the consent. */
  revokeClientAccess(accountId: number, clientId: string, now: Micros): Promise<void>;
  /** Records when tokens were last used (a batch; a later time never goes back). */
  touchTokens(uses: readonly TokenUse[]): Promise<void>;

  /** The throttle is keyed by username or address, not by account (docs/operations.md). */
  recordFailure(key: string, now: Micros): Promise<void>;
  failuresSince(key: string, since: Micros): Promise<FailureCount>;
  clearFailures(key: string): Promise<void>;
  /** Failures older than `before` are deleted; returns how many. A sweep (administration). */
  forgetFailures(before: Micros): Promise<number>;
}
