import { NAMED_OUTBOX, REMINDER_EVENTS, WANTED_EVENTS, WEBHOOKS_SCHEMA } from './webhook-schema.js';
import { pendingMigrations, type Migration } from '../schema-version.js';
import { NEW_EPOCH_SQL } from './epoch.js';
import { AUTH_SCHEMA } from './auth-schema.js';
import { GRANT_VERSION } from './grant-version.js';
import type { SqliteDatabase } from './connection.js';

/*
 * Times are integer microseconds since the epoch (Micros); booleans are 0/1; text is stored as
 * received. Every table and index of account data leads with account_id, so one account's rows
 * are contiguous and nothing can be looked up across accounts by accident.
 */
const INITIAL_SCHEMA = `
CREATE TABLE accounts (
  id             INTEGER PRIMARY KEY,
  username       TEXT    NOT NULL UNIQUE,
  password_hash  TEXT,
  nickname       TEXT    NOT NULL,
  timezone       TEXT    NOT NULL,
  language       TEXT    NOT NULL,
  week_start     INTEGER NOT NULL CHECK (week_start BETWEEN 0 AND 6),
  disabled       INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1)),
  created        INTEGER NOT NULL,
  updated        INTEGER NOT NULL,
  -- The head change number: the rev of the account's last change.
  rev            INTEGER NOT NULL DEFAULT 0,
  -- The updated stamp of the last change: the next one is strictly later.
  last_updated   INTEGER NOT NULL DEFAULT 0,
  -- The largest rev and updated among purged tombstones: older sync positions are expired.
  purged_rev     INTEGER NOT NULL DEFAULT 0,
  purged_updated INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE TABLE tokens (
  hash       TEXT    PRIMARY KEY, -- SHA-256 of the token, hex
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  scope      TEXT    NOT NULL CHECK (scope IN ('read', 'write')),
  name       TEXT    NOT NULL,
  created    INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER
) STRICT;

CREATE TABLE tasks (
  account_id   INTEGER NOT NULL REFERENCES accounts (id),
  id           TEXT    NOT NULL,
  title        TEXT    NOT NULL,
  notes        TEXT    NOT NULL,
  attribute    TEXT    NOT NULL CHECK (attribute IN ('inbox', 'next', 'plan', 'noplan', 'waiting')),
  all_day      INTEGER NOT NULL CHECK (all_day IN (0, 1)),
  start_at     INTEGER,
  end_at       INTEGER,
  completed    INTEGER,
  trashed      INTEGER,
  deleted      INTEGER,
  -- The project and context as the task shows them; no foreign key, because a purged project
  -- may still be named by a tombstone task that is purged later.
  project_id   TEXT,
  project_name TEXT,
  context_id   TEXT,
  context_name TEXT,
  tags         TEXT    NOT NULL, -- JSON array of strings
  priority     INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),
  repeater     TEXT,
  created      INTEGER NOT NULL,
  updated      INTEGER NOT NULL,
  rev          INTEGER NOT NULL,
  PRIMARY KEY (account_id, id),
  CHECK ((project_id IS NULL) = (project_name IS NULL)),
  CHECK ((context_id IS NULL) = (context_name IS NULL))
) STRICT;
CREATE UNIQUE INDEX tasks_by_rev ON tasks (account_id, rev);
-- updated grows with rev within an account, so "updated after" is a range of this index.
CREATE INDEX tasks_by_updated ON tasks (account_id, updated);
CREATE INDEX tasks_live_by_project ON tasks (account_id, project_id) WHERE deleted IS NULL;
CREATE INDEX tasks_live_by_context ON tasks (account_id, context_id) WHERE deleted IS NULL;

CREATE TABLE projects (
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  id         TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  notes      TEXT    NOT NULL,
  archived   INTEGER,
  deleted    INTEGER,
  created    INTEGER NOT NULL,
  updated    INTEGER NOT NULL,
  rev        INTEGER NOT NULL,
  PRIMARY KEY (account_id, id)
) STRICT;
CREATE UNIQUE INDEX projects_by_rev ON projects (account_id, rev);
CREATE INDEX projects_by_updated ON projects (account_id, updated);
-- Names are unique among live projects only: deleting one frees its name.
CREATE UNIQUE INDEX projects_live_name ON projects (account_id, name) WHERE deleted IS NULL;

CREATE TABLE contexts (
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  id         TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  deleted    INTEGER,
  created    INTEGER NOT NULL,
  updated    INTEGER NOT NULL,
  rev        INTEGER NOT NULL,
  PRIMARY KEY (account_id, id)
) STRICT;
CREATE UNIQUE INDEX contexts_by_rev ON contexts (account_id, rev);
CREATE INDEX contexts_by_updated ON contexts (account_id, updated);
CREATE UNIQUE INDEX contexts_live_name ON contexts (account_id, name) WHERE deleted IS NULL;
`;

/** The first answer to each POST with an Idempotency-Key, replayed to retries for a while. */
const IDEMPOTENCY_ANSWERS = `
CREATE TABLE idempotency_answers (
  account_id   INTEGER NOT NULL REFERENCES accounts (id),
  key          TEXT    NOT NULL,
  request_hash TEXT    NOT NULL,
  answer       TEXT    NOT NULL, -- the response body as sent
  created      INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
) STRICT;
-- Old answers are forgotten account by account, oldest first.
CREATE INDEX idempotency_answers_by_created ON idempotency_answers (account_id, created);
`;

/**
 * Kept answers become kept outcomes: the records as domain data, the zone and the shape, rendered
 * anew on a replay. Answers kept as response bytes by earlier releases are dropped: a retry that
 * spans the upgrade is applied as a new request.
 */
const KEPT_OUTCOMES = `
DELETE FROM idempotency_answers;
ALTER TABLE idempotency_answers RENAME COLUMN answer TO outcome;
`;

/**
 * Issue #16. What each account stores, kept by triggers on every synced table so that no write
 * path can forget it (purges included): its records, tombstones too, and the UTF-8 bytes of their
 * texts (titles, names, notes), against the per-account cap. And an index for purging tombstones
 * by the server's time (updated), not by the `deleted` a client may backdate.
 */
const STORAGE_USAGE = `
ALTER TABLE accounts ADD COLUMN stored_records INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN stored_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET
  stored_records = (SELECT count(*) FROM tasks WHERE account_id = accounts.id)
    + (SELECT count(*) FROM projects WHERE account_id = accounts.id)
    + (SELECT count(*) FROM contexts WHERE account_id = accounts.id),
  stored_bytes = (SELECT coalesce(sum(length(CAST(title AS BLOB)) + length(CAST(notes AS BLOB))), 0) FROM tasks WHERE account_id = accounts.id)
    + (SELECT coalesce(sum(length(CAST(name AS BLOB)) + length(CAST(notes AS BLOB))), 0) FROM projects WHERE account_id = accounts.id)
    + (SELECT coalesce(sum(length(CAST(name AS BLOB))), 0) FROM contexts WHERE account_id = accounts.id);
${[
  ['tasks', 'length(CAST(ROW.title AS BLOB)) + length(CAST(ROW.notes AS BLOB))', 'title, notes'],
  ['projects', 'length(CAST(ROW.name AS BLOB)) + length(CAST(ROW.notes AS BLOB))', 'name, notes'],
  ['contexts', 'length(CAST(ROW.name AS BLOB))', 'name'],
]
  .map(
    ([table = '', bytes = '', texts = '']) => `
CREATE TRIGGER ${table}_usage_insert AFTER INSERT ON ${table} BEGIN
  UPDATE accounts SET stored_records = stored_records + 1, stored_bytes = stored_bytes + ${bytes.replaceAll('ROW', 'NEW')}
  WHERE id = NEW.account_id;
END;
CREATE TRIGGER ${table}_usage_update AFTER UPDATE OF ${texts} ON ${table} BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + ${bytes.replaceAll('ROW', 'NEW')} - (${bytes.replaceAll('ROW', 'OLD')})
  WHERE id = NEW.account_id;
END;
CREATE TRIGGER ${table}_usage_delete AFTER DELETE ON ${table} BEGIN
  UPDATE accounts SET stored_records = stored_records - 1, stored_bytes = stored_bytes - (${bytes.replaceAll('ROW', 'OLD')})
  WHERE id = OLD.account_id;
END;
CREATE INDEX ${table}_tombstones_by_updated ON ${table} (account_id, updated) WHERE deleted IS NOT NULL;`,
  )
  .join('\n')}
`;

/** The UTF-8 bytes of a task's texts, as the usage triggers count them since migration 6. */
function taskTextBytes(row: 'NEW' | 'OLD'): string {
  return ['title', 'notes', 'ical_extras'].map((name) => `length(CAST(${row}.${name} AS BLOB))`).join(' + ');
}

/**
 * Issue #14. A task keeps the iCalendar properties an import found no field for, as text that
 * counts toward the account's bytes of text as notes do: the usage triggers of tasks are made
 * again to count it. Every task has none yet, so the bytes counted so far stay right.
 */
const ICAL_EXTRAS = `
ALTER TABLE tasks ADD COLUMN ical_extras TEXT NOT NULL DEFAULT '';
DROP TRIGGER tasks_usage_insert;
DROP TRIGGER tasks_usage_update;
DROP TRIGGER tasks_usage_delete;
CREATE TRIGGER tasks_usage_insert AFTER INSERT ON tasks BEGIN
  UPDATE accounts SET stored_records = stored_records + 1, stored_bytes = stored_bytes + ${taskTextBytes('NEW')}
  WHERE id = NEW.account_id;
END;
CREATE TRIGGER tasks_usage_update AFTER UPDATE OF title, notes, ical_extras ON tasks BEGIN
  UPDATE accounts SET stored_bytes = stored_bytes + ${taskTextBytes('NEW')} - (${taskTextBytes('OLD')})
  WHERE id = NEW.account_id;
END;
CREATE TRIGGER tasks_usage_delete AFTER DELETE ON tasks BEGIN
  UPDATE accounts SET stored_records = stored_records - 1, stored_bytes = stored_bytes - (${taskTextBytes('OLD')})
  WHERE id = OLD.account_id;
END;
`;

/** A project's color, as CalDAV clients set it; none for every project so far. */
const PROJECT_COLORS = `ALTER TABLE projects ADD COLUMN color TEXT;`;

/**
 * Issue 21: the store's epoch, carried in every sync position it hands out, so that a position
 * from before a restore, or from another store, is told apart (docs/api.md). One row, made here
 * with a random epoch; a restore gives it a new one (restore.ts). Positions handed out before
 * (\`c1.\` cursors, with no epoch) stay good on a store that already had accounts, until its
 * first restore. Per account, the stretch of \`updated\` times its last restore lost.
 */
const STORE_IDENTITY = `
CREATE TABLE store_identity (
  only_row         INTEGER PRIMARY KEY CHECK (only_row = 1),
  epoch            TEXT    NOT NULL,
  legacy_positions INTEGER NOT NULL -- 1: cursors without an epoch are still good
) STRICT;
INSERT INTO store_identity (only_row, epoch, legacy_positions)
  SELECT 1, ${NEW_EPOCH_SQL}, EXISTS (SELECT 1 FROM accounts);
ALTER TABLE accounts ADD COLUMN restore_gap_after  INTEGER NOT NULL DEFAULT 0; -- Micros
ALTER TABLE accounts ADD COLUMN restore_gap_before INTEGER NOT NULL DEFAULT 0; -- Micros
`;

/**
 * Issue #22. Subtasks, their order and reminders: the parent's id (children are read by it), the
 * order, the reminders as JSON, and when the next of them falls due, indexed for every account at
 * once so that what falls due is one read. Every task is top-level, unordered and has none.
 */
const SUBTASKS_AND_REMINDERS = `
ALTER TABLE tasks ADD COLUMN parent_id TEXT;
ALTER TABLE tasks ADD COLUMN sort_order INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN reminders TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN reminder_due INTEGER;
CREATE INDEX tasks_children ON tasks (account_id, parent_id) WHERE parent_id IS NOT NULL AND deleted IS NULL;
CREATE INDEX tasks_reminder_due ON tasks (reminder_due) WHERE reminder_due IS NOT NULL;
`;

/** Every schema version in order. Append only: a released migration is never edited. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', sql: INITIAL_SCHEMA },
  { version: 2, name: 'idempotency answers', sql: IDEMPOTENCY_ANSWERS },
  { version: 3, name: 'kept write outcomes', sql: KEPT_OUTCOMES },
  { version: 4, name: 'sign-in, oauth and token management', sql: AUTH_SCHEMA },
  { version: 5, name: 'storage usage per account; tombstones by server time', sql: STORAGE_USAGE },
  { version: 6, name: 'kept iCalendar properties of tasks', sql: ICAL_EXTRAS },
  { version: 7, name: 'project colors (CalDAV calendar-color)', sql: PROJECT_COLORS },
  { version: 8, name: 'store epoch in sync positions; what a restore lost', sql: STORE_IDENTITY },
  { version: 9, name: 'subtasks, sort order and reminders', sql: SUBTASKS_AND_REMINDERS },
  { version: 10, name: 'webhooks, their outbox and delivery logs', sql: WEBHOOKS_SCHEMA },
  { version: 11, name: 'reminders firing as reminder.due', sql: REMINDER_EVENTS },
  { version: 12, name: 'the outbox keeps what a hook wants', sql: WANTED_EVENTS },
  { version: 13, name: 'the outbox names a change, its record stays in its table', sql: NAMED_OUTBOX },
  { version: 14, name: 'token lookups kept until a token or account changes', sql: GRANT_VERSION },
];

const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name    TEXT    NOT NULL,
  applied INTEGER NOT NULL -- Micros
) STRICT`;

/**
 * Applies the migrations the file lacks and records each in schema_migrations. Runs as one
 * IMMEDIATE transaction, so two processes starting at once apply each migration exactly once:
 * the second waits for the write lock and then finds nothing left to do. Returns the versions
 * applied. `migrations` is every one but for a test that makes a file of an older version.
 */
export function applyMigrations(
  db: SqliteDatabase,
  now: number,
  migrations: readonly Migration[] = MIGRATIONS,
): readonly number[] {
  const migrate = db.transaction((): number[] => {
    db.exec(CREATE_MIGRATIONS_TABLE);
    const applied = new Set(db.prepare<[], number>('SELECT version FROM schema_migrations').pluck().all());
    const record = db.prepare<[number, string, number]>(
      'INSERT INTO schema_migrations (version, name, applied) VALUES (?, ?, ?)',
    );
    const done: number[] = [];
    for (const migration of pendingMigrations(migrations, applied)) {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, now);
      done.push(migration.version);
    }
    return done;
  });
  return migrate.immediate();
}
