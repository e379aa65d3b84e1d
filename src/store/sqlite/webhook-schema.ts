import { SYNC_KINDS, type SyncKind } from '../../domain/sync.js';
import { KIND_STORAGE } from '../kinds/records.js';
import { outboxEventsSql } from '../kinds/webhook-events.js';

/**
 * The row of a change as the outbox keeps it: every column by name, as SQLite stores it; `row`
 * names it (NEW or OLD in a trigger, a table's alias in a read).
 */
function recordJson(kind: SyncKind, row = 'NEW'): string {
  const names = Object.keys(KIND_STORAGE[kind].columns);
  return `json_object(${names.map((name) => `'${name}', ${row}.${name}`).join(', ')})`;
}

/**
 * The event a change of this kind is (API.md 4.7); `inserted` tells an insert from an update.
 * From migration 11 (`firing`), an update that moves nothing but a task's next reminder is that
 * reminder firing: service/reminders.ts claims a firing so, and no other write does (a client's
 * change leaves a reminder whose time passed to the claim, domain/task-rules.ts). A later task
 * column is compared once a migration writes this trigger again.
 */
function eventType(kind: SyncKind, inserted: boolean, firing: boolean): string {
  if (kind !== 'task') return `'${kind}.changed'`;
  if (inserted) return `CASE WHEN NEW.deleted IS NOT NULL THEN 'task.deleted' ELSE 'task.created' END`;
  const fired = firing
    ? `WHEN OLD.reminder_due IS NOT NULL AND NEW.reminder_due IS NOT OLD.reminder_due
      AND ${unchangedBut(kind, ['rev', 'updated', 'reminder_due'])} THEN 'reminder.due'`
    : '';
  return `CASE
    WHEN NEW.deleted IS NOT NULL THEN 'task.deleted'
    WHEN NEW.completed IS NOT NULL AND OLD.completed IS NULL THEN 'task.completed'
    ${fired}
    ELSE 'task.updated' END`;
}

/** True in a trigger when no column of the row but `moving` changed. */
function unchangedBut(kind: SyncKind, moving: readonly string[]): string {
  const names = Object.keys(KIND_STORAGE[kind].columns).filter((name) => !moving.includes(name));
  return names.map((name) => `NEW.${name} IS OLD.${name}`).join(' AND ');
}

/**
 * `wanted` (from migration 12): only a change that an active hook of the account wants is kept (a
 * hook's `events` is a JSON array of names, so a quoted name is found as itself): a hook for
 * reminders or projects alone costs a task's write nothing. Every hook still reads what is kept
 * and goes past what it does not want. `named` (from migration 13): the outbox names the change
 * and leaves its record in its table (keptTriggers), instead of a copy of the row in each commit.
 */
function outboxTrigger(
  kind: SyncKind,
  event: 'INSERT' | 'UPDATE',
  firing: boolean,
  wanted = false,
  named = false,
): string {
  const table = KIND_STORAGE[kind].table;
  const type = eventType(kind, event === 'INSERT', firing);
  const insert = wanted
    ? `INSERT INTO webhook_outbox (account_id, rev, kind, type, record, created)
  SELECT NEW.account_id, NEW.rev, '${kind}', change.type, ${named ? 'NULL' : recordJson(kind)}, NEW.updated
  FROM (SELECT ${type} AS type) AS change
  WHERE EXISTS (SELECT 1 FROM webhooks WHERE account_id = NEW.account_id AND active = 1
    AND (instr(events, '"*"') > 0 OR instr(events, '"' || change.type || '"') > 0))`
    : `INSERT INTO webhook_outbox (account_id, rev, kind, type, record, created)
  VALUES (NEW.account_id, NEW.rev, '${kind}', ${type}, ${recordJson(kind)}, NEW.updated)`;
  return `
CREATE TRIGGER ${table}_outbox_${event.toLowerCase()} AFTER ${event} ON ${table}
WHEN EXISTS (SELECT 1 FROM webhooks WHERE account_id = NEW.account_id AND active = 1)
BEGIN
  ${insert}
  ON CONFLICT (account_id, rev) DO NOTHING;
END;`;
}

/**
 * A change of an account with an active hook writes its delivery in the same transaction (the
 * outbox), as migration 10 first wrote it.
 */
function outboxTriggers(kind: SyncKind): string {
  return (['INSERT', 'UPDATE'] as const).map((event) => outboxTrigger(kind, event, false)).join('\n');
}

/**
 * Migration 12: every kind's outbox triggers as before, keeping only what a hook wants (`named`,
 * from migration 13: naming the change, keptTriggers keeping its row).
 */
function wantedOutboxTriggers(kind: SyncKind, named = false): string {
  const table = KIND_STORAGE[kind].table;
  return (['INSERT', 'UPDATE'] as const)
    .map(
      (event) => `DROP TRIGGER IF EXISTS ${table}_outbox_${event.toLowerCase()};
${outboxTrigger(kind, event, kind === 'task' && event === 'UPDATE', true, named)}`,
    )
    .join('\n');
}

/**
 * From migration 13 the outbox names a change and its record stays in its table while its row is
 * there. A write that replaces or removes the row (a later change, a purge) first keeps the row
 * as it was in the outbox row that names it, if one does (only an account with a hook can have
 * one): every outbox row can always be read as its change left the record (outboxEventsSql).
 */
function keptTriggers(kind: SyncKind): string {
  const table = KIND_STORAGE[kind].table;
  const keep = `UPDATE webhook_outbox SET record = ${recordJson(kind, 'OLD')}
  WHERE account_id = OLD.account_id AND rev = OLD.rev AND record IS NULL;`;
  return (['UPDATE', 'DELETE'] as const)
    .map(
      (event) => `
CREATE TRIGGER ${table}_outbox_keep_${event.toLowerCase()} AFTER ${event} ON ${table}
WHEN EXISTS (SELECT 1 FROM webhooks WHERE account_id = OLD.account_id)
BEGIN
  ${keep}
END;`,
    )
    .join('\n');
}

/**
 * The outbox and every kind's triggers as the latest migration writes them; a later kind's
 * migration makes its triggers with this.
 */
export function namedOutboxTriggers(kind: SyncKind): string {
  return `${wantedOutboxTriggers(kind, true)}\n${keptTriggers(kind)}`;
}

/** The account's outbox after a rev (outboxEventsSql). */
export const EVENTS_SQL = outboxEventsSql(recordJson, '?', '?', '?');

/** Issue #24: webhooks, their outbox and their delivery logs. */
export const WEBHOOKS_SCHEMA = `
CREATE TABLE webhooks (
  account_id      INTEGER NOT NULL REFERENCES accounts (id),
  id              TEXT    NOT NULL,
  url             TEXT    NOT NULL,
  events          TEXT    NOT NULL, -- JSON array of event names, or ["*"]
  active          INTEGER NOT NULL CHECK (active IN (0, 1)),
  -- Kept as made, not hashed: every delivery is signed with it (docs/api.md, "Webhooks").
  secret          TEXT    NOT NULL,
  created         INTEGER NOT NULL,
  updated         INTEGER NOT NULL,
  failing_since   INTEGER,
  disabled_reason TEXT,
  delivered_rev   INTEGER NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt    INTEGER,
  lease_owner     TEXT,
  lease_until     INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, id)
) STRICT;
CREATE TABLE webhook_outbox (
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  rev        INTEGER NOT NULL,
  kind       TEXT    NOT NULL,
  type       TEXT    NOT NULL,
  record     TEXT    NOT NULL, -- JSON object of the row's columns
  created    INTEGER NOT NULL,
  PRIMARY KEY (account_id, rev)
) STRICT;
CREATE TABLE webhook_deliveries (
  account_id  INTEGER NOT NULL,
  hook_id     TEXT    NOT NULL,
  at          INTEGER NOT NULL,
  message_id  TEXT    NOT NULL,
  type        TEXT    NOT NULL,
  rev         INTEGER NOT NULL,
  status      INTEGER,
  error       TEXT,
  -- A hook's log goes with it in remove().
  duration_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (account_id, hook_id, at);
${(['task', 'project', 'context'] as const).map(outboxTriggers).join('\n')}
`;

/** Issue #24: a task's reminder firing is delivered as `reminder.due`. */
export const REMINDER_EVENTS = `
DROP TRIGGER tasks_outbox_update;
${outboxTrigger('task', 'UPDATE', true)}
`;

/** Issue #24: a hook for some events alone costs the other changes nothing. */
export const WANTED_EVENTS = (['task', 'project', 'context'] as const)
  .map((kind) => wantedOutboxTriggers(kind))
  .join('\n');

/**
 * Issue #24: a change's commit writes a short outbox row naming it, not a copy of the record
 * (keptTriggers); the table is made again for a record that may be absent, keyed by its key alone.
 */
export const NAMED_OUTBOX = `
${SYNC_KINDS.map((kind) => {
  const table = KIND_STORAGE[kind].table;
  return `DROP TRIGGER ${table}_outbox_insert;\nDROP TRIGGER ${table}_outbox_update;`;
}).join('\n')}
CREATE TABLE webhook_outbox_named (
  account_id INTEGER NOT NULL REFERENCES accounts (id),
  rev        INTEGER NOT NULL,
  kind       TEXT    NOT NULL,
  type       TEXT    NOT NULL,
  record     TEXT, -- JSON object of the row's columns; NULL while the row of this rev stands in its table
  created    INTEGER NOT NULL,
  PRIMARY KEY (account_id, rev)
) WITHOUT ROWID, STRICT;
INSERT INTO webhook_outbox_named (account_id, rev, kind, type, record, created)
  SELECT account_id, rev, kind, type, record, created FROM webhook_outbox;
DROP TABLE webhook_outbox;
ALTER TABLE webhook_outbox_named RENAME TO webhook_outbox;
${SYNC_KINDS.map((kind) => namedOutboxTriggers(kind)).join('\n')}
`;
