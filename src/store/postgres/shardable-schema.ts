/**
 * Migration 7 of the PostgreSQL schema: every table of an account's data, and every index on it,
 * leads with the account, so the database can be distributed by account (docs/operations.md,
 * "Sharding by account"; test/store/postgres-shardable.test.ts holds the rule and its exceptions).
 *
 * What used to be found before its account was known now has a way to the account first:
 * - a username, through `usernames` (sign-in and the command line find the account id there, then
 *   read `accounts` by id); `accounts` keeps the name, no longer unique on its own;
 * - a secret (token, session, code, refresh token), by the account id that begins every secret
 *   made from now on (src/domain/secret-key.ts), or, for the secrets made before, through
 *   `legacy_secrets`: the account of every hash that existed when this migration ran, so that
 *   tokens and sessions already handed out keep working. Nothing writes to it afterwards.
 */
export const SHARDABLE_SCHEMA = `
CREATE TABLE usernames (
  username   text   NOT NULL CONSTRAINT usernames_unique PRIMARY KEY,
  account_id bigint NOT NULL
);
INSERT INTO usernames (username, account_id) SELECT username, id FROM accounts;
ALTER TABLE accounts DROP CONSTRAINT accounts_username_unique;

CREATE TABLE legacy_secrets (
  hash       text   NOT NULL PRIMARY KEY, -- SHA-256 of the secret, hex
  account_id bigint NOT NULL
);
INSERT INTO legacy_secrets (hash, account_id)
  SELECT hash, account_id FROM tokens
  UNION SELECT hash, account_id FROM sessions
  UNION SELECT hash, account_id FROM oauth_codes
  UNION SELECT hash, account_id FROM refresh_tokens
ON CONFLICT (hash) DO NOTHING;

-- The keys lead with the account; an index on the account alone is then the key's first column.
ALTER TABLE tokens DROP CONSTRAINT tokens_pkey, ADD CONSTRAINT tokens_pkey PRIMARY KEY (account_id, hash);
DROP INDEX tokens_by_account;
DROP INDEX tokens_by_client;
CREATE INDEX tokens_by_client ON tokens (account_id, client_id) WHERE client_id IS NOT NULL;
DROP INDEX tokens_by_grant;
CREATE INDEX tokens_by_grant ON tokens (account_id, grant_id) WHERE grant_id IS NOT NULL;

ALTER TABLE sessions DROP CONSTRAINT sessions_pkey, ADD CONSTRAINT sessions_pkey PRIMARY KEY (account_id, hash);
DROP INDEX sessions_by_account;

ALTER TABLE oauth_codes DROP CONSTRAINT oauth_codes_pkey,
  ADD CONSTRAINT oauth_codes_pkey PRIMARY KEY (account_id, hash);

ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_pkey,
  ADD CONSTRAINT refresh_tokens_pkey PRIMARY KEY (account_id, hash);
DROP INDEX refresh_tokens_by_grant;
CREATE INDEX refresh_tokens_by_grant ON refresh_tokens (account_id, grant_id);
DROP INDEX refresh_tokens_by_client;
CREATE INDEX refresh_tokens_by_client ON refresh_tokens (account_id, client_id);
`;
