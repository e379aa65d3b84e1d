/**
 * Migration 3 of the SQLite schema: sign-in, OAuth 2 and token management (ACCOUNTS.md). Secrets
 * (session ids, client secrets, codes, refresh tokens) are stored as SHA-256 hashes only.
 */
export const AUTH_SCHEMA = `
-- A token's public id is the first 16 hex characters of its hash: nothing to store.
ALTER TABLE tokens ADD COLUMN client_id TEXT;
ALTER TABLE tokens ADD COLUMN grant_id TEXT;
ALTER TABLE tokens ADD COLUMN last_used INTEGER;
CREATE INDEX tokens_by_client ON tokens (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX tokens_by_grant ON tokens (grant_id) WHERE grant_id IS NOT NULL;

CREATE TABLE sessions (
  hash       TEXT    PRIMARY KEY, -- SHA-256 of the cookie's value, hex
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  created    INTEGER NOT NULL,
  last_seen  INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_account ON sessions (account_id);
CREATE INDEX sessions_by_last_seen ON sessions (last_seen);

CREATE TABLE oauth_clients (
  id              TEXT    PRIMARY KEY,
  name            TEXT    NOT NULL,
  secret_hash     TEXT,   -- NULL: a public client
  redirect_uris   TEXT    NOT NULL, -- a JSON array of strings
  legacy_implicit INTEGER NOT NULL CHECK (legacy_implicit IN (0, 1)),
  created         INTEGER NOT NULL
) STRICT;

CREATE TABLE oauth_consents (
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  client_id  TEXT    NOT NULL,
  scope      TEXT    NOT NULL CHECK (scope IN ('read', 'write')),
  created    INTEGER NOT NULL,
  PRIMARY KEY (account_id, client_id)
) STRICT;

CREATE TABLE oauth_codes (
  hash         TEXT    PRIMARY KEY,
  client_id    TEXT    NOT NULL,
  account_id   INTEGER NOT NULL REFERENCES accounts (id),
  redirect_uri TEXT    NOT NULL,
  scope        TEXT    NOT NULL CHECK (scope IN ('read', 'write')),
  challenge    TEXT,
  expires_at   INTEGER NOT NULL,
  used_at      INTEGER
) STRICT;

CREATE TABLE refresh_tokens (
  hash       TEXT    PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  client_id  TEXT    NOT NULL,
  scope      TEXT    NOT NULL CHECK (scope IN ('read', 'write')),
  grant_id   TEXT    NOT NULL,
  created    INTEGER NOT NULL,
  revoked_at INTEGER
) STRICT;
CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (grant_id);
CREATE INDEX refresh_tokens_by_client ON refresh_tokens (client_id);

CREATE TABLE sign_in_failures (
  key TEXT    NOT NULL, -- 'user:<name>' or 'addr:<address>'
  at  INTEGER NOT NULL
) STRICT;
CREATE INDEX sign_in_failures_by_key ON sign_in_failures (key, at);
`;
