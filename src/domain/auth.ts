import type { Account, Scope } from './account.js';
import { MICROS_PER_DAY, MICROS_PER_SECOND, type Micros } from './time.js';

/** A web session as the store keeps it: found by the hash of the cookie's value. */
export interface Session {
  readonly account: Account;
  readonly created: Micros;
  readonly lastSeen: Micros;
}

/** A session not seen for this long is gone (ACCOUNTS.md section 2). */
export const SESSION_IDLE_MICROS = 30 * MICROS_PER_DAY;

/** A session this old is gone however often it is used (ACCOUNTS.md section 2: a year). */
export const SESSION_LIFETIME_MICROS = 365 * MICROS_PER_DAY;

/** An OAuth client as registered by an administrator. A public client has no secret. */
export interface OAuthClient {
  /** 24 lowercase hex characters. */
  readonly id: string;
  readonly name: string;
  /** SHA-256 of the secret, hex; null for a public client. */
  readonly secretHash: string | null;
  readonly redirectUris: readonly string[];
  readonly legacyImplicit: boolean;
  readonly created: Micros;
}

export const CLIENT_ID_PATTERN = /^[0-9a-f]{24}$/;

/** An authorization code, stored by its hash until its short life is over. */
export interface AuthorizationCode {
  readonly hash: string;
  readonly clientId: string;
  readonly accountId: number;
  readonly redirectUri: string;
  readonly scope: Scope;
  /** The PKCE S256 challenge the code is bound to; null when the client sent none. */
  readonly challenge: string | null;
  readonly expiresAt: Micros;
}

/** A code lives 60 seconds (ACCOUNTS.md section 3). */
export const CODE_LIFETIME_MICROS = 60 * MICROS_PER_SECOND;

/** A refresh token: it makes new access tokens of the same grant until revoked. */
export interface RefreshGrant {
  readonly accountId: number;
  readonly clientId: string;
  readonly scope: Scope;
  /** Shared by every token made from one authorization: revoking the grant revokes them all. */
  readonly grantId: string;
  readonly revoked: boolean;
}

/** What `token list` and the settings page show of a token: never the token or its hash. */
export interface TokenSummary {
  readonly id: string;
  readonly name: string;
  readonly scope: Scope;
  readonly clientId: string | null;
  readonly created: Micros;
  readonly lastUsed: Micros | null;
  readonly expiresAt: Micros | null;
  readonly revoked: boolean;
  /** Made by the web app for one signed-in browser: it ends with that browser's session. */
  readonly sessionBound: boolean;
}

/** A new token with what ties it to OAuth; the CLI's tokens have no client and no grant. */
export interface NewIssuedToken {
  readonly hash: string;
  readonly accountId: number;
  readonly scope: Scope;
  readonly name: string;
  readonly expiresAt: Micros | null;
  readonly clientId: string | null;
  readonly grantId: string | null;
}

/**
 * The web app's token for one signed-in browser: no OAuth client, and the session's hash as its
 * grant, so ending the session (sign-out, a new password, 30 days idle) revokes it in the same
 * transaction. That pair (a grant without a client) marks such a token in the store.
 */
export interface NewSessionToken {
  readonly hash: string;
  readonly accountId: number;
  readonly sessionHash: string;
  readonly name: string;
  readonly expiresAt: Micros;
}

/** An OAuth client an account allowed: what the settings page lists under connected apps. */
export interface ConnectedApp {
  readonly clientId: string;
  readonly name: string;
  readonly scope: Scope;
  /** When the account first allowed it. */
  readonly allowed: Micros;
  /** The latest use of any of the tokens the account gave it; null: none used yet. */
  readonly lastUsed: Micros | null;
}

/** A token's public id: the first 16 hex characters of its hash (the hash cannot be reversed). */
export function tokenIdOf(hash: string): string {
  return hash.slice(0, 16);
}

/**
 * The scope a request asks for: empty or missing means `write`, as with the original service;
 * several words (`read write`) mean the widest. Undefined: a word that is not a scope.
 */
export function parseScope(text: string | undefined): Scope | undefined {
  const words = (text ?? '').split(/[\s,+]+/).filter((word) => word !== '');
  if (words.length === 0) return 'write';
  if (words.some((word) => word !== 'read' && word !== 'write')) return undefined;
  return words.includes('write') ? 'write' : 'read';
}

/** Whether a grant of `held` already covers a request for `asked`. */
export function scopeCovers(held: Scope, asked: Scope): boolean {
  return held === 'write' || asked === 'read';
}

const LOOPBACK = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::\d{1,5})?(\/.*)?$/;

/** The loopback URI without its port, or undefined when it is not a loopback URI (RFC 8252 7.3). */
function loopbackWithoutPort(uri: string): string | undefined {
  const match = LOOPBACK.exec(uri);
  if (match === null) return undefined;
  return `http://${match[1] ?? ''}${match[2] ?? ''}`;
}

/**
 * Whether `given` is one of the client's registered redirect URIs: character for character, except
 * that a loopback URI matches on any port.
 */
export function redirectUriMatches(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  const loose = loopbackWithoutPort(given);
  if (loose === undefined) return false;
  return registered.some((uri) => loopbackWithoutPort(uri) === loose);
}

/** Hosts of plain `http:` redirect URIs: the loopback interface, where a native app listens (RFC 8252 7.3). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** RFC 8252 7.1: a private-use scheme is a domain name of the app's maker, reversed (`com.example.app`). */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

/**
 * Why an administrator may not register `uri` as a redirect URI, or undefined when they may
 * (ACCOUNTS.md section 2): `https:`, loopback `http:`, or a private-use scheme; never a script,
 * data, a file, or a fragment.
 */
export function redirectUriRefusal(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'not an absolute URI';
  }
  if (uri.includes('#')) return 'a redirect URI has no fragment';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return undefined;
  if (PRIVATE_USE_SCHEME.test(url.protocol)) return undefined;
  return (
    'a redirect URI is https:, http: on a loopback address (127.0.0.1, [::1], localhost), ' +
    'or a private-use scheme of RFC 8252 named by a reverse domain name (com.example.app:/cb)'
  );
}

/** RFC 7636: a code challenge or verifier is 43-128 unreserved characters. */
export const PKCE_VALUE = /^[A-Za-z0-9._~-]{43,128}$/;

/** Sign-in throttle limits (ACCOUNTS.md section 2). */
export const THROTTLE_WINDOW_MICROS = 15 * 60 * MICROS_PER_SECOND;
export const FAILURES_PER_USERNAME = 5;
export const FAILURES_PER_ADDRESS = 20;
/** The longest a throttled key waits. */
const MAX_DELAY_MICROS = 15 * 60 * MICROS_PER_SECOND;

/** Recent failures of one key (a username or an address): how many, and the last one's time. */
export interface FailureCount {
  readonly count: number;
  readonly last: Micros;
}

/**
 * Until when a key is refused: from the `limit`th failure on, one second after the last failure,
 * doubling with each further failure, at most 15 minutes. Null: not throttled.
 */
export function refusedUntil(failures: FailureCount, limit: number): Micros | null {
  if (failures.count < limit) return null;
  const doublings = Math.min(failures.count - limit, 20);
  return failures.last + Math.min(MAX_DELAY_MICROS, MICROS_PER_SECOND * 2 ** doublings);
}
