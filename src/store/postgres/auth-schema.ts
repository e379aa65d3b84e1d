/**
 * Migration 3 of the PostgreSQL schema: sign-in, OAuth 2 and token management (ACCOUNTS.md). Secrets
 * (session ids, client secrets, codes, refresh tokens) are stored as SHA-256 hashes only.
 */
export const AUTH_SCHEMA = `
-- A token's public id is the first 16 hex characters of its hash: nothing to store.
ALTER TABLE tokens ADD COLUMN client_id text;
ALTER TABLE tokens ADD COLUMN grant_id text;
ALTER TABLE tokens ADD COLUMN last_used bigint;
CREATE INDEX tokens_by_client ON tokens (client_id) WHERE client_id IS NOT NULL;
CREATE INDEX tokens_by_grant ON tokens (grant_id) WHERE grant_id IS NOT NULL;

CREATE TABLE sessions (
  hash       text    PRIMARY KEY, -- SHA-256 of the cookie's value, hex
  account_id bigint NOT NULL REFERENCES accounts (id),
  created    bigint NOT NULL,
  last_seen  bigint NOT NULL
);
CREATE INDEX sessions_by_account ON sessions (account_id);
CREATE INDEX sessions_by_last_seen ON sessions (last_seen);

CREATE TABLE oauth_clients (
  id              text    PRIMARY KEY,
  name            text    NOT NULL,
  secret_hash     text,   -- NULL: a public client
  redirect_uris   text    NOT NULL, -- a JSON array of strings
  legacy_implicit boolean NOT NULL,
  created         bigint NOT NULL
);

CREATE TABLE oauth_consents (
  account_id bigint NOT NULL REFERENCES accounts (id),
  client_id  text    NOT NULL,
  scope      text    NOT NULL CHECK (scope IN ('read', 'write')),
  created    bigint NOT NULL,
  PRIMARY KEY (account_id, client_id)
);

CREATE TABLE oauth_codes (
  hash         text    PRIMARY KEY,
  client_id    text    NOT NULL,
  account_id   bigint NOT NULL REFERENCES accounts (id),
  redirect_uri text    NOT NULL,
  scope        text    NOT NULL CHECK (scope IN ('read', 'write')),
  challenge    text,
  expires_at   bigint NOT NULL,
  used_at      bigint
);

CREATE TABLE refresh_tokens (
  hash       text    PRIMARY KEY,
  account_id bigint NOT NULL REFERENCES accounts (id),
  client_id  text    NOT NULL,
  scope      text    NOT NULL CHECK (scope IN ('read', 'write')),
  grant_id   text    NOT NULL,
  created    bigint NOT NULL,
  revoked_at bigint
);
CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (grant_id);
CREATE INDEX refresh_tokens_by_client ON refresh_tokens (client_id);

CREATE TABLE sign_in_failures (
  key text    NOT NULL, -- 'user:<name>' or 'addr:<address>'
  at  bigint NOT NULL
);
CREATE INDEX sign_in_failures_by_key ON sign_in_failures (key, at);
`;
