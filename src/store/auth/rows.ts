/**
 * The rows of sign-in and OAuth, described once for both engines: each table's columns with their
 * types, what each read makes of a row, what each insert writes. The migrations of each engine
 * create these tables in its own dialect; test/store/auth-rows.test.ts holds both schemas to the
 * columns here. Secrets (tokens, session ids, codes, refresh tokens) are stored as hashes only.
 */
import {
  DEFAULT_LANGUAGE,
  DEFAULT_WEEK_START,
  type Account,
  type NewAccount,
  type NewToken,
  type Scope,
  type TokenGrant,
} from '../../domain/account.js';
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
import type { Micros } from '../../domain/time.js';
import type { TakenCode } from '../auth-store.js';
import { insertShape, pick, qualified, rowShape, type AuthColumns, type AuthRowOf } from './shapes.js';

/**
 * `accounts`: the columns that make an Account, and the password's hash. The sync position and
 * usage are the store's, beside the synced kinds.
 */
const ACCOUNT_COLUMNS = {
  id: 'int',
  username: 'text',
  nickname: 'text',
  timezone: 'text',
  language: 'text',
  week_start: 'int',
  disabled: 'bool',
  created: 'micros',
  updated: 'micros',
} as const satisfies AuthColumns;
const ACCOUNTS = { ...ACCOUNT_COLUMNS, password_hash: 'textOrNull' } as const satisfies AuthColumns;

/** A token's public id is the first 16 hex characters of its hash: nothing to store. */
const TOKENS = {
  hash: 'text',
  account_id: 'int',
  scope: 'text',
  name: 'text',
  created: 'micros',
  expires_at: 'microsOrNull',
  revoked_at: 'microsOrNull',
  // What ties a token to OAuth (a client and the grant it came from) or to a browser's session
  // (no client, the session's hash as the grant).
  client_id: 'textOrNull',
  grant_id: 'textOrNull',
  last_used: 'microsOrNull',
} as const satisfies AuthColumns;

/** A browser's session, by the hash of its cookie's value. */
const SESSIONS = {
  hash: 'text',
  account_id: 'int',
  created: 'micros',
  last_seen: 'micros',
} as const satisfies AuthColumns;

/** `redirect_uris` is a JSON array of strings; a public client has no `secret_hash`. */
const OAUTH_CLIENTS = {
  id: 'text',
  name: 'text',
  secret_hash: 'textOrNull',
  redirect_uris: 'text',
  legacy_implicit: 'bool',
  created: 'micros',
} as const satisfies AuthColumns;

const OAUTH_CONSENTS = {
  account_id: 'int',
  client_id: 'text',
  scope: 'text',
  created: 'micros',
} as const satisfies AuthColumns;

const OAUTH_CODES = {
  hash: 'text',
  client_id: 'text',
  account_id: 'int',
  redirect_uri: 'text',
  scope: 'text',
  challenge: 'textOrNull',
  expires_at: 'micros',
  used_at: 'microsOrNull',
} as const satisfies AuthColumns;

const REFRESH_TOKENS = {
  hash: 'text',
  account_id: 'int',
  client_id: 'text',
  scope: 'text',
  grant_id: 'text',
  created: 'micros',
  revoked_at: 'microsOrNull',
} as const satisfies AuthColumns;

/** The sign-in throttle, keyed by `user:<name>` or `addr:<address>`, not by account. */
const SIGN_IN_FAILURES = { key: 'text', at: 'micros' } as const satisfies AuthColumns;

/** Every table, with the columns described here; the schema test compares them with each engine's. */
export const AUTH_TABLES = {
  accounts: ACCOUNTS,
  tokens: TOKENS,
  sessions: SESSIONS,
  oauth_clients: OAUTH_CLIENTS,
  oauth_consents: OAUTH_CONSENTS,
  oauth_codes: OAUTH_CODES,
  refresh_tokens: REFRESH_TOKENS,
  sign_in_failures: SIGN_IN_FAILURES,
} as const;

// The schema's CHECK constraints keep these columns valid; the guards narrow the types without a
// cast, and name the column if the data was edited by hand.

function scopeOf(value: string): Scope {
  if (value === 'read' || value === 'write') return value;
  throw new Error(`a scope column holds an unknown value: ${value}`);
}

function redirectUrisOf(json: string): readonly string[] {
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed) || !parsed.every((uri): uri is string => typeof uri === 'string')) {
    throw new Error('oauth_clients.redirect_uris is not a JSON array of strings');
  }
  return parsed;
}

function accountOf(row: AuthRowOf<typeof ACCOUNT_COLUMNS>): Account {
  return {
    id: row.id,
    username: row.username,
    nickname: row.nickname,
    timezone: row.timezone,
    language: row.language,
    weekStart: row.week_start,
    disabled: row.disabled,
    created: row.created,
    updated: row.updated,
  };
}

export const ACCOUNT = rowShape('accounts', ACCOUNT_COLUMNS, accountOf);

export const CREDENTIALS = rowShape(
  'accounts',
  ACCOUNTS,
  (row): { readonly account: Account; readonly passwordHash: string | null } => ({
    account: accountOf(row),
    passwordHash: row.password_hash,
  }),
);

/** A session joined with its account: `FROM sessions s JOIN accounts a`. */
export const SESSION = rowShape(
  'sessions',
  { ...ACCOUNT_COLUMNS, session_created: SESSIONS.created, last_seen: SESSIONS.last_seen },
  (row): Session => ({ account: accountOf(row), created: row.session_created, lastSeen: row.last_seen }),
  { ...qualified('a', ACCOUNT_COLUMNS), session_created: 's.created', last_seen: 's.last_seen' },
);

/** What the token check reads of the token, besides its hash and account. */
const GRANT_TOKEN_COLUMNS = ['scope', 'expires_at', 'revoked_at'] as const;

/**
 * Every column the token check (TOKEN_GRANT) reads, by table: only a change to one of these (or a
 * row added or removed) can change its answer. SQLite's remembered lookups last until one does
 * (store/sqlite/grant-version.ts).
 */
export const TOKEN_GRANT_READS = {
  accounts: Object.keys(ACCOUNT_COLUMNS),
  tokens: ['hash', 'account_id', ...GRANT_TOKEN_COLUMNS],
} as const satisfies Record<string, readonly string[]>;

/** A token joined with its account, for the token check: `FROM tokens t JOIN accounts a`. */
export const TOKEN_GRANT = rowShape(
  'tokens',
  { ...ACCOUNT_COLUMNS, ...pick(TOKENS, GRANT_TOKEN_COLUMNS) },
  (row): TokenGrant => ({
    account: accountOf(row),
    scope: scopeOf(row.scope),
    expiresAt: row.expires_at,
    revoked: row.revoked_at !== null,
  }),
  { ...qualified('a', ACCOUNT_COLUMNS), scope: 't.scope', expires_at: 't.expires_at', revoked_at: 't.revoked_at' },
);

export const TOKEN_SUMMARY = rowShape(
  'tokens',
  pick(TOKENS, ['hash', 'name', 'scope', 'client_id', 'grant_id', 'created', 'last_used', 'expires_at', 'revoked_at']),
  (row): TokenSummary => ({
    id: tokenIdOf(row.hash),
    name: row.name,
    scope: scopeOf(row.scope),
    clientId: row.client_id,
    created: row.created,
    lastUsed: row.last_used,
    expiresAt: row.expires_at,
    revoked: row.revoked_at !== null,
    sessionBound: row.client_id === null && row.grant_id !== null,
  }),
);

/** What RFC 7009 revocation needs of an access token. */
export const ISSUED_TOKEN = rowShape(
  'tokens',
  pick(TOKENS, ['client_id', 'grant_id']),
  (row): { readonly clientId: string | null; readonly grantId: string | null } => ({
    clientId: row.client_id,
    grantId: row.grant_id,
  }),
);

/** Whose a token is, for revoking it by its public id. */
export const TOKEN_OWNER = rowShape(
  'tokens',
  pick(TOKENS, ['hash', 'account_id']),
  (row): { readonly hash: string; readonly accountId: number } => ({ hash: row.hash, accountId: row.account_id }),
);

export const CLIENT = rowShape('oauth_clients', OAUTH_CLIENTS, (row): OAuthClient => ({
  id: row.id,
  name: row.name,
  secretHash: row.secret_hash,
  redirectUris: redirectUrisOf(row.redirect_uris),
  legacyImplicit: row.legacy_implicit,
  created: row.created,
}));

export const CONSENT_SCOPE = rowShape('oauth_consents', pick(OAUTH_CONSENTS, ['scope']), (row) => scopeOf(row.scope));

/** A consent with its client's name and the latest use of a token it holds: `FROM oauth_consents c JOIN oauth_clients k`. */
export const CONNECTED_APP = rowShape(
  'oauth_consents',
  {
    ...pick(OAUTH_CONSENTS, ['client_id']),
    name: OAUTH_CLIENTS.name,
    ...pick(OAUTH_CONSENTS, ['scope', 'created']),
    last_used: TOKENS.last_used,
  },
  (row): ConnectedApp => ({
    clientId: row.client_id,
    name: row.name,
    scope: scopeOf(row.scope),
    allowed: row.created,
    lastUsed: row.last_used,
  }),
  {
    client_id: 'c.client_id',
    name: 'k.name',
    scope: 'c.scope',
    created: 'c.created',
    last_used:
      '(SELECT max(t.last_used) FROM tokens t WHERE t.account_id = c.account_id AND t.client_id = c.client_id)',
  },
);

/** A code as it was before it was taken: whether it had been used already. */
export const TAKEN_CODE = rowShape('oauth_codes', OAUTH_CODES, (row): TakenCode => ({
  code: {
    hash: row.hash,
    clientId: row.client_id,
    accountId: row.account_id,
    redirectUri: row.redirect_uri,
    scope: scopeOf(row.scope),
    challenge: row.challenge,
    expiresAt: row.expires_at,
  },
  usedBefore: row.used_at !== null,
}));

export const REFRESH_GRANT = rowShape(
  'refresh_tokens',
  pick(REFRESH_TOKENS, ['account_id', 'client_id', 'scope', 'grant_id', 'revoked_at']),
  (row): RefreshGrant => ({
    accountId: row.account_id,
    clientId: row.client_id,
    scope: scopeOf(row.scope),
    grantId: row.grant_id,
    revoked: row.revoked_at !== null,
  }),
);

/** Recent failures of one key: `count(*)` and `max(at)` over its rows. */
export const FAILURES = rowShape(
  'sign_in_failures',
  { count: 'int', last: 'microsOrNull' },
  (row): FailureCount => ({ count: row.count, last: row.last ?? 0 }),
  { count: 'count(*)', last: 'max(at)' },
);

/** A new account: named by its username until it sets a nickname. */
export const ACCOUNT_INSERT = insertShape(
  'accounts',
  pick(ACCOUNTS, ['username', 'password_hash', 'nickname', 'timezone', 'language', 'week_start', 'created', 'updated']),
  ({ account, now }: { readonly account: NewAccount; readonly now: Micros }) => ({
    username: account.username,
    password_hash: account.passwordHash,
    nickname: account.username,
    timezone: account.timezone,
    language: DEFAULT_LANGUAGE,
    week_start: DEFAULT_WEEK_START,
    created: now,
    updated: now,
  }),
);

/**
 * Every token: the command line's have no client and no grant, an app's both, and the web app's
 * the session's hash as their grant and no client (it is made only while the session exists).
 */
export const TOKEN_INSERT = insertShape(
  'tokens',
  pick(TOKENS, ['hash', 'account_id', 'scope', 'name', 'created', 'expires_at', 'client_id', 'grant_id']),
  ({ token, now }: { readonly token: NewToken | NewIssuedToken | NewSessionToken; readonly now: Micros }) => ({
    hash: token.hash,
    account_id: token.accountId,
    scope: 'scope' in token ? token.scope : 'write',
    name: token.name,
    created: now,
    expires_at: token.expiresAt,
    client_id: 'clientId' in token ? token.clientId : null,
    grant_id: 'sessionHash' in token ? token.sessionHash : 'grantId' in token ? token.grantId : null,
  }),
);

export const SESSION_INSERT = insertShape(
  'sessions',
  SESSIONS,
  ({ hash, accountId, now }: { readonly hash: string; readonly accountId: number; readonly now: Micros }) => ({
    hash,
    account_id: accountId,
    created: now,
    last_seen: now,
  }),
);

export const CLIENT_INSERT = insertShape('oauth_clients', OAUTH_CLIENTS, (client: OAuthClient) => ({
  id: client.id,
  name: client.name,
  secret_hash: client.secretHash,
  redirect_uris: JSON.stringify(client.redirectUris),
  legacy_implicit: client.legacyImplicit,
  created: client.created,
}));

export const CONSENT_INSERT = insertShape(
  'oauth_consents',
  OAUTH_CONSENTS,
  (consent: {
    readonly accountId: number;
    readonly clientId: string;
    readonly scope: Scope;
    readonly now: Micros;
  }) => ({
    account_id: consent.accountId,
    client_id: consent.clientId,
    scope: consent.scope,
    created: consent.now,
  }),
);

export const CODE_INSERT = insertShape(
  'oauth_codes',
  pick(OAUTH_CODES, ['hash', 'client_id', 'account_id', 'redirect_uri', 'scope', 'challenge', 'expires_at']),
  (code: AuthorizationCode) => ({
    hash: code.hash,
    client_id: code.clientId,
    account_id: code.accountId,
    redirect_uri: code.redirectUri,
    scope: code.scope,
    challenge: code.challenge,
    expires_at: code.expiresAt,
  }),
);

export const REFRESH_INSERT = insertShape(
  'refresh_tokens',
  pick(REFRESH_TOKENS, ['hash', 'account_id', 'client_id', 'scope', 'grant_id', 'created']),
  ({
    hash,
    grant,
    now,
  }: {
    readonly hash: string;
    readonly grant: Omit<RefreshGrant, 'revoked'>;
    readonly now: Micros;
  }) => ({
    hash,
    account_id: grant.accountId,
    client_id: grant.clientId,
    scope: grant.scope,
    grant_id: grant.grantId,
    created: now,
  }),
);

export const FAILURE_INSERT = insertShape(
  'sign_in_failures',
  SIGN_IN_FAILURES,
  ({ key, now }: { readonly key: string; readonly now: Micros }) => ({ key, at: now }),
);
