/**
 * Migration 14: a version of what token lookups read, changed (to a new random value) by every
 * write of a column the token check reads (auth/rows.ts, TOKEN_GRANT_READS) and by every token or
 * account added or removed, whichever connection or process writes. A lookup remembered under one
 * version is what the query answers for as long as the version stays (grant-cache.ts): a commit of
 * tasks alone keeps every remembered lookup, where `PRAGMA data_version` alone dropped them all.
 * Random rather than counted, so that a value once seen stands for one state of the tokens only.
 * Written out once, as released: test/store/sqlite-grant-cache.test.ts holds it to the columns.
 */
export const GRANT_VERSION = `
CREATE TABLE grant_version (
  only    INTEGER PRIMARY KEY CHECK (only = 1),
  version INTEGER NOT NULL
) STRICT;
INSERT INTO grant_version (only, version) VALUES (1, random());

CREATE TRIGGER tokens_grant_insert AFTER INSERT ON tokens
BEGIN UPDATE grant_version SET version = random(); END;
CREATE TRIGGER tokens_grant_delete AFTER DELETE ON tokens
BEGIN UPDATE grant_version SET version = random(); END;
CREATE TRIGGER tokens_grant_update AFTER UPDATE OF hash, account_id, scope, expires_at, revoked_at ON tokens
BEGIN UPDATE grant_version SET version = random(); END;

CREATE TRIGGER accounts_grant_insert AFTER INSERT ON accounts
BEGIN UPDATE grant_version SET version = random(); END;
CREATE TRIGGER accounts_grant_delete AFTER DELETE ON accounts
BEGIN UPDATE grant_version SET version = random(); END;
CREATE TRIGGER accounts_grant_update
AFTER UPDATE OF id, username, nickname, timezone, language, week_start, disabled, created, updated ON accounts
BEGIN UPDATE grant_version SET version = random(); END;
`;

/** Reads the version (migration 14's table). */
export const GRANT_VERSION_SQL = 'SELECT version FROM grant_version';
