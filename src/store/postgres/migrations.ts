import { AUTH_SCHEMA } from './auth-schema.js';
import { SHARDABLE_SCHEMA } from './shardable-schema.js';
import {
  NAMED_OUTBOX,
  ONE_NOTIFICATION,
  OUTBOX_NOTIFICATIONS,
  REMINDER_EVENTS,
  WANTED_EVENTS,
  WEBHOOKS_SCHEMA,
} from './webhook-schema.js';

/**
 * The schema, as an append-only list of migrations. A released migration is never edited: a
 * change is a new entry with the next version.
 *
 * Layout rules: times are `bigint` microseconds since the Unix epoch (UTC). Every table and index
 * that holds an account's data leads with `account_id` (`accounts` with its `id`), and no statement
 * reads across accounts except administration (the command line's listings, the maintenance
 * sweeps), so the tables can be distributed by account (docs/operations.md, "Sharding by
 * account"). test/store/postgres-shardable.test.ts holds the rule on the migrated catalog, and
 * lists the tables and indexes exempt from it, each with its reason.
 */
import type { Migration } from '../schema-version.js';
import { DATABASE_OID_SQL, NEW_EPOCH_SQL, SYSTEM_IDENTIFIER_SQL } from './life.js';

const INITIAL_SCHEMA = `
CREATE TABLE accounts (
  id             bigserial PRIMARY KEY,
  username       text NOT NULL CONSTRAINT accounts_username_unique UNIQUE,
  password_hash  text,
  nickname       text NOT NULL,
  timezone       text NOT NULL,
  language       text NOT NULL,
  week_start     smallint NOT NULL CHECK (week_start BETWEEN 0 AND 6),
  disabled       boolean NOT NULL DEFAULT false,
  created        bigint NOT NULL,
  updated        bigint NOT NULL,
  -- The account's head change number and the "updated" stamp it was given: every write
  -- locks this row, so change numbers are handed out one writer at a time, in commit order.
  rev            bigint NOT NULL DEFAULT 0,
  last_updated   bigint NOT NULL DEFAULT 0,
  -- The largest rev and updated among purged tombstones: older sync positions are expired.
  purged_rev     bigint NOT NULL DEFAULT 0,
  purged_updated bigint NOT NULL DEFAULT 0
);

CREATE TABLE tokens (
  hash        text PRIMARY KEY, -- sha-256 of the token, hex
  account_id  bigint NOT NULL REFERENCES accounts (id),
  scope       text NOT NULL CHECK (scope IN ('read', 'write')),
  name        text NOT NULL,
  created     bigint NOT NULL,
  expires_at  bigint,
  revoked_at  bigint
);
CREATE INDEX tokens_by_account ON tokens (account_id);

CREATE TABLE tasks (
  account_id    bigint NOT NULL REFERENCES accounts (id),
  id            text NOT NULL,
  title         text NOT NULL,
  notes         text NOT NULL,
  attribute     text NOT NULL CHECK (attribute IN ('inbox', 'next', 'plan', 'noplan', 'waiting')),
  all_day       boolean NOT NULL,
  start_at      bigint,
  end_at        bigint,
  completed     bigint,
  trashed       bigint,
  deleted       bigint,
  project_id    text,
  project_name  text,
  context_id    text,
  context_name  text,
  tags          text[] NOT NULL,
  priority      smallint NOT NULL CHECK (priority BETWEEN 0 AND 3),
  repeater      text,
  created       bigint NOT NULL,
  updated       bigint NOT NULL,
  rev           bigint NOT NULL,
  PRIMARY KEY (account_id, id),
  CONSTRAINT tasks_rev_unique UNIQUE (account_id, rev),
  -- A task names its project and context by id and shows their current names. No foreign key:
  -- a purged project may still be named by a tombstone task purged later.
  CHECK ((project_id IS NULL) = (project_name IS NULL)),
  CHECK ((context_id IS NULL) = (context_name IS NULL))
);
CREATE INDEX tasks_by_updated ON tasks (account_id, updated);
CREATE INDEX tasks_tombstones ON tasks (account_id, deleted) WHERE deleted IS NOT NULL;
CREATE INDEX tasks_by_project ON tasks (account_id, project_id) WHERE deleted IS NULL AND project_id IS NOT NULL;
CREATE INDEX tasks_by_context ON tasks (account_id, context_id) WHERE deleted IS NULL AND context_id IS NOT NULL;

CREATE TABLE projects (
  account_id  bigint NOT NULL REFERENCES accounts (id),
  id          text NOT NULL,
  name        text NOT NULL,
  notes       text NOT NULL,
  archived    bigint,
  deleted     bigint,
  created     bigint NOT NULL,
  updated     bigint NOT NULL,
  rev         bigint NOT NULL,
  PRIMARY KEY (account_id, id),
  CONSTRAINT projects_rev_unique UNIQUE (account_id, rev)
);
CREATE UNIQUE INDEX projects_live_name ON projects (account_id, name) WHERE deleted IS NULL;
CREATE INDEX projects_by_updated ON projects (account_id, updated);
CREATE INDEX projects_tombstones ON projects (account_id, deleted) WHERE deleted IS NOT NULL;

CREATE TABLE contexts (
  account_id  bigint NOT NULL REFERENCES accounts (id),
  id          text NOT NULL,
  name        text NOT NULL,
  deleted     bigint,
  created     bigint NOT NULL,
  updated     bigint NOT NULL,
  rev         bigint NOT NULL,
  PRIMARY KEY (account_id, id),
  CONSTRAINT contexts_rev_unique UNIQUE (account_id, rev)
);
CREATE UNIQUE INDEX contexts_live_name ON contexts (account_id, name) WHERE deleted IS NULL;
CREATE INDEX contexts_by_updated ON contexts (account_id, updated);
CREATE INDEX contexts_tombstones ON contexts (account_id, deleted) WHERE deleted IS NOT NULL;
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

/** The first answer to each `Idempotency-Key`, replayed to retries for a day. */
const IDEMPOTENCY_ANSWERS = `
CREATE TABLE idempotency_answers (
  account_id   bigint NOT NULL REFERENCES accounts (id),
  key          text NOT NULL,
  request_hash text NOT NULL,
  answer       text NOT NULL,
  created      bigint NOT NULL,
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_answers_by_created ON idempotency_answers (account_id, created);
`;

/**
 * Issue #16. What each account stores, kept by triggers on every synced table so that no write
 * path can forget it (purges included): its records, tombstones too, and the UTF-8 bytes of their
 * texts (titles, names, notes), against the per-account cap. And an index for purging tombstones
 * by the server's time (updated), not by the `deleted` a client may backdate.
 */
const STORAGE_USAGE = `
ALTER TABLE accounts ADD COLUMN stored_records bigint NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0;
UPDATE accounts SET
  stored_records = (SELECT count(*) FROM tasks WHERE account_id = accounts.id)
    + (SELECT count(*) FROM projects WHERE account_id = accounts.id)
    + (SELECT count(*) FROM contexts WHERE account_id = accounts.id),
  stored_bytes = (SELECT coalesce(sum(octet_length(title) + octet_length(notes)), 0) FROM tasks WHERE account_id = accounts.id)
    + (SELECT coalesce(sum(octet_length(name) + octet_length(notes)), 0) FROM projects WHERE account_id = accounts.id)
    + (SELECT coalesce(sum(octet_length(name)), 0) FROM contexts WHERE account_id = accounts.id);
${[
  ['tasks', 'octet_length(ROW.title) + octet_length(ROW.notes)'],
  ['projects', 'octet_length(ROW.name) + octet_length(ROW.notes)'],
  ['contexts', 'octet_length(ROW.name)'],
]
  .map(
    ([table = '', bytes = '']) => `
CREATE FUNCTION ${table}_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE accounts SET stored_records = stored_records + 1, stored_bytes = stored_bytes + ${bytes.replaceAll('ROW', 'NEW')}
    WHERE id = NEW.account_id;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE accounts SET stored_bytes = stored_bytes + ${bytes.replaceAll('ROW', 'NEW')} - (${bytes.replaceAll('ROW', 'OLD')})
    WHERE id = NEW.account_id AND ${bytes.replaceAll('ROW', 'NEW')} <> ${bytes.replaceAll('ROW', 'OLD')};
  ELSE
    UPDATE accounts SET stored_records = stored_records - 1, stored_bytes = stored_bytes - (${bytes.replaceAll('ROW', 'OLD')})
    WHERE id = OLD.account_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER ${table}_usage AFTER INSERT OR UPDATE OR DELETE ON ${table}
  FOR EACH ROW EXECUTE FUNCTION ${table}_usage();
CREATE INDEX ${table}_tombstones_by_updated ON ${table} (account_id, updated) WHERE deleted IS NOT NULL;`,
  )
  .join('\n')}
`;

/** The UTF-8 bytes of a task's texts, as the usage trigger counts them since migration 6. */
function taskTextBytes(row: 'NEW' | 'OLD'): string {
  return ['title', 'notes', 'ical_extras'].map((name) => `octet_length(${row}.${name})`).join(' + ');
}

/**
 * Issue #14. A task keeps the iCalendar properties an import found no field for, as text that
 * counts toward the account's bytes of text as notes do: the usage function of tasks is replaced
 * by one that counts it (its trigger stays). Every task has none yet, so the bytes counted so far
 * stay right.
 */
const ICAL_EXTRAS = `
ALTER TABLE tasks ADD COLUMN ical_extras text NOT NULL DEFAULT '';
CREATE OR REPLACE FUNCTION tasks_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE accounts SET stored_records = stored_records + 1, stored_bytes = stored_bytes + ${taskTextBytes('NEW')}
    WHERE id = NEW.account_id;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE accounts SET stored_bytes = stored_bytes + ${taskTextBytes('NEW')} - (${taskTextBytes('OLD')})
    WHERE id = NEW.account_id AND ${taskTextBytes('NEW')} <> ${taskTextBytes('OLD')};
  ELSE
    UPDATE accounts SET stored_records = stored_records - 1, stored_bytes = stored_bytes - (${taskTextBytes('OLD')})
    WHERE id = OLD.account_id;
  END IF;
  RETURN NULL;
END $$;
`;

/** A project's color, as CalDAV clients set it; none for every project so far. */
const PROJECT_COLORS = `ALTER TABLE projects ADD COLUMN color text;`;

/**
 * Issue 21: the database's epoch, carried in every sync position it hands out, so that a position
 * from before a restore, or from another store, is told apart (docs/api.md). One row, with where
 * the epoch was made (the cluster's system identifier and the database's oid): pg_restore brings
 * the row into another database, and migrate() then begins a new life there (life.ts). Positions
 * handed out before (\`c1.\` cursors, with no epoch) stay good on a database that already had
 * accounts, until its first restore. Per account, the stretch of \`updated\` times its last restore
 * lost.
 */
const STORE_IDENTITY = `
CREATE TABLE store_identity (
  only_row          boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  epoch             text    NOT NULL,
  legacy_positions  boolean NOT NULL,
  system_identifier bigint  NOT NULL,
  database_oid      bigint  NOT NULL
);
INSERT INTO store_identity (epoch, legacy_positions, system_identifier, database_oid)
  SELECT ${NEW_EPOCH_SQL}, EXISTS (SELECT 1 FROM accounts), ${SYSTEM_IDENTIFIER_SQL}, ${DATABASE_OID_SQL};
ALTER TABLE accounts
  ADD COLUMN restore_gap_after  bigint NOT NULL DEFAULT 0,
  ADD COLUMN restore_gap_before bigint NOT NULL DEFAULT 0;
`;

/**
 * Issue #24: every process hears every commit. A row written to a synced table notifies the
 * channel with "<account id> <kind>"; PostgreSQL sends notifications only at COMMIT, and folds
 * the same text notified twice in one transaction into one, so a commit of 1,000 tasks is one
 * notification. The channel's name is CHANGE_CHANNEL (change-listener.ts).
 */
const CHANGE_NOTIFICATIONS = `
CREATE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('task_service_changes', NEW.account_id::text || ' ' || TG_ARGV[0]);
  RETURN NULL;
END $$;
CREATE TRIGGER tasks_notify AFTER INSERT OR UPDATE ON tasks FOR EACH ROW EXECUTE FUNCTION notify_change('task');
CREATE TRIGGER projects_notify AFTER INSERT OR UPDATE ON projects FOR EACH ROW EXECUTE FUNCTION notify_change('project');
CREATE TRIGGER contexts_notify AFTER INSERT OR UPDATE ON contexts FOR EACH ROW EXECUTE FUNCTION notify_change('context');
`;

/**
 * Issue #22. Subtasks, their order and reminders: the parent's id (children are read by it), the
 * order, the reminders as JSON, and when the next of them falls due, indexed across accounts so
 * that what falls due is one read (the firer's, like the sweep of idle sessions, administration).
 */
const SUBTASKS_AND_REMINDERS = `
ALTER TABLE tasks ADD COLUMN parent_id text;
ALTER TABLE tasks ADD COLUMN sort_order integer NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN reminders text NOT NULL DEFAULT '[]';
ALTER TABLE tasks ADD COLUMN reminder_due bigint;
CREATE INDEX tasks_children ON tasks (account_id, parent_id) WHERE parent_id IS NOT NULL AND deleted IS NULL;
CREATE INDEX tasks_reminder_due ON tasks (reminder_due) WHERE reminder_due IS NOT NULL;
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', sql: INITIAL_SCHEMA },
  { version: 2, name: 'idempotency answers', sql: IDEMPOTENCY_ANSWERS },
  { version: 3, name: 'kept write outcomes', sql: KEPT_OUTCOMES },
  { version: 4, name: 'sign-in, oauth and token management', sql: AUTH_SCHEMA },
  { version: 5, name: 'storage usage per account; tombstones by server time', sql: STORAGE_USAGE },
  { version: 6, name: 'kept iCalendar properties of tasks', sql: ICAL_EXTRAS },
  {
    version: 7,
    name: 'every key leads with the account: usernames and older secrets in directories',
    sql: SHARDABLE_SCHEMA,
  },
  { version: 8, name: 'project colors (CalDAV calendar-color)', sql: PROJECT_COLORS },
  { version: 9, name: 'store epoch in sync positions; what a restore lost', sql: STORE_IDENTITY },
  { version: 10, name: 'subtasks, sort order and reminders', sql: SUBTASKS_AND_REMINDERS },
  { version: 11, name: 'every commit notifies the change feed', sql: CHANGE_NOTIFICATIONS },
  { version: 12, name: 'webhooks, their outbox and delivery logs', sql: WEBHOOKS_SCHEMA },
  { version: 13, name: 'reminders firing as reminder.due', sql: REMINDER_EVENTS },
  { version: 14, name: 'the outbox triggers notify the senders', sql: OUTBOX_NOTIFICATIONS },
  { version: 15, name: 'the outbox keeps what a hook wants', sql: WANTED_EVENTS },
  { version: 16, name: 'the outbox names a change, its record stays in its table', sql: NAMED_OUTBOX },
  { version: 17, name: 'one notification per commit, naming the outbox too', sql: ONE_NOTIFICATION },
];
