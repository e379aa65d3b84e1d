import { SYNC_KINDS, type SyncKind } from '../../domain/sync.js';
import { KIND_STORAGE } from '../kinds/records.js';
import { outboxEventsSql } from '../kinds/webhook-events.js';
import { CHANGE_CHANNEL, OUTBOX_NOTE } from './change-listener.js';

/**
 * The row of a change as the outbox keeps it: every column by name, `bigint`s as text (as pg
 * reads them), so the kind's codec reads it back as it reads a row of its table. `row` names it
 * (NEW or OLD in a trigger, a table's alias in a read).
 */
function recordJson(kind: SyncKind, row = 'NEW'): string {
  const { columns } = KIND_STORAGE[kind];
  const pairs = Object.entries(columns).map(([name, column]) => {
    const value =
      column.type === 'micros' || column.type === 'microsOrNull' ? `${row}.${name}::text` : `${row}.${name}`;
    return `'${name}', ${value}`;
  });
  return `jsonb_build_object(${pairs.join(', ')})`;
}

/**
 * The event a change of this kind is (API.md 4.7). From migration 13 (`firing`), an update that
 * moves nothing but a task's next reminder is that reminder firing: service/reminders.ts claims
 * a firing so, and no other write does (a client's change leaves a reminder whose time passed to
 * the claim, domain/task-rules.ts). A later task column is compared once a migration writes this
 * function again.
 */
function eventType(kind: SyncKind, firing: boolean): string {
  if (kind !== 'task') return `'${kind}.changed'`;
  const fired = firing
    ? `WHEN OLD.reminder_due IS NOT NULL AND NEW.reminder_due IS DISTINCT FROM OLD.reminder_due
      AND ${unchangedBut(kind, ['rev', 'updated', 'reminder_due'])} THEN 'reminder.due'`
    : '';
  return `CASE
    WHEN NEW.deleted IS NOT NULL THEN 'task.deleted'
    WHEN TG_OP = 'INSERT' THEN 'task.created'
    WHEN NEW.completed IS NOT NULL AND OLD.completed IS NULL THEN 'task.completed'
    ${fired}
    ELSE 'task.updated' END`;
}

/** True in a trigger when no column of the row but `moving` changed. */
function unchangedBut(kind: SyncKind, moving: readonly string[]): string {
  const names = Object.keys(KIND_STORAGE[kind].columns).filter((name) => !moving.includes(name));
  return names.map((name) => `NEW.${name} IS NOT DISTINCT FROM OLD.${name}`).join(' AND ');
}

/**
 * A change of an account with an active hook writes its delivery in the same transaction: the
 * outbox, keyed by the change's rev, so a crash after COMMIT loses nothing. `latest`: the
 * function as the newest migration writes it (a later kind's migration makes its own so), else
 * as migration 12 first wrote it.
 */
export function outboxTrigger(kind: SyncKind, latest = false): string {
  const table = KIND_STORAGE[kind].table;
  if (latest) return `${wantedOutboxFunction(kind, 'CREATE', true, false)}\n${namedOutboxTrigger(kind)}`;
  return `${outboxFunction(kind, 'CREATE', false, false)}
CREATE TRIGGER ${table}_outbox AFTER INSERT OR UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_outbox();`;
}

/** From migration 16 the trigger also runs when a row is removed (a purge), to keep it (wantedOutboxFunction, `named`). */
function namedOutboxTrigger(kind: SyncKind): string {
  const table = KIND_STORAGE[kind].table;
  return `CREATE TRIGGER ${table}_outbox AFTER INSERT OR UPDATE OR DELETE ON ${table}
  FOR EACH ROW EXECUTE FUNCTION ${table}_outbox();`;
}

/**
 * The trigger function writing a change's delivery. From migration 14 (`notify`) it also tells
 * the change feed "<account id> outbox" (PostgreSQL folds repeats in a transaction into one), so
 * that the senders look at the outbox after commits that wrote to it, not after every commit.
 */
function outboxFunction(
  kind: SyncKind,
  create: 'CREATE' | 'CREATE OR REPLACE',
  firing: boolean,
  notify: boolean,
): string {
  const table = KIND_STORAGE[kind].table;
  return `
${create} FUNCTION ${table}_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhooks WHERE account_id = NEW.account_id AND active) THEN
    INSERT INTO webhook_outbox (account_id, rev, kind, type, record, created)
    VALUES (NEW.account_id, NEW.rev, '${kind}', ${eventType(kind, firing)}, ${recordJson(kind)}, NEW.updated)
    ON CONFLICT (account_id, rev) DO NOTHING;${notify ? outboxNotice : ''}
  END IF;
  RETURN NULL;
END $$;`;
}

const outboxNotice = `\n    PERFORM pg_notify('${CHANGE_CHANNEL}', NEW.account_id::text || ' ${OUTBOX_NOTE}');`;

/**
 * Migration 15's function: as migration 14's, keeping only a change that an active hook of the
 * account wants: a hook for reminders or projects alone costs a task's write nothing. Every hook
 * still reads what is kept and goes past what it does not want.
 *
 * `named`, migration 16's: the outbox row names the change and leaves its record in its table
 * while its row is there, instead of a copy of the row in each commit. A write that replaces or
 * removes the row (a later change, a purge) first keeps the row as it was in the outbox row that
 * names it, if one does (only an account with a hook can have one): every outbox row can always be
 * read as its change left the record (outboxEventsSql).
 */
function wantedOutboxFunction(
  kind: SyncKind,
  create: 'CREATE' | 'CREATE OR REPLACE',
  named = false,
  notify = true,
): string {
  const table = KIND_STORAGE[kind].table;
  const start = named
    ? `IF NOT EXISTS (SELECT 1 FROM webhooks WHERE account_id = coalesce(NEW.account_id, OLD.account_id)) THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    UPDATE webhook_outbox SET record = ${recordJson(kind, 'OLD')}
    WHERE account_id = OLD.account_id AND rev = OLD.rev AND record IS NULL;
    IF TG_OP = 'DELETE' THEN
      RETURN NULL;
    END IF;
  END IF;`
    : `IF NOT EXISTS (SELECT 1 FROM webhooks WHERE account_id = NEW.account_id AND active) THEN
    RETURN NULL;
  END IF;`;
  return `
${create} FUNCTION ${table}_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  change_type text;
BEGIN
  -- Most accounts have no hook: they pay this one look and no more.
  ${start}
  change_type := ${eventType(kind, kind === 'task')};
  IF EXISTS (SELECT 1 FROM webhooks WHERE account_id = NEW.account_id AND active
      AND ('*' = ANY (events) OR change_type = ANY (events))) THEN
    INSERT INTO webhook_outbox (account_id, rev, kind, type, record, created)
    VALUES (NEW.account_id, NEW.rev, '${kind}', change_type, ${named ? 'NULL' : recordJson(kind)}, NEW.updated)
    ON CONFLICT (account_id, rev) DO NOTHING;${notify ? outboxNotice : ''}
  END IF;
  RETURN NULL;
END $$;`;
}

/** Issue #24: webhooks, their outbox and their delivery logs. */
export const WEBHOOKS_SCHEMA = `
CREATE TABLE webhooks (
  account_id      bigint NOT NULL REFERENCES accounts (id),
  id              text NOT NULL,
  url             text NOT NULL,
  events          text[] NOT NULL,
  active          boolean NOT NULL,
  -- Kept as made, not hashed: every delivery is signed with it (docs/api.md, "Webhooks").
  secret          text NOT NULL,
  created         bigint NOT NULL,
  updated         bigint NOT NULL,
  failing_since   bigint,
  disabled_reason text,
  -- The rev of the last change delivered or skipped; the outbox after it is still to go.
  delivered_rev   bigint NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt    bigint,
  -- One sender at a time per hook, across processes.
  lease_owner     text,
  lease_until     bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, id)
);
CREATE TABLE webhook_outbox (
  account_id bigint NOT NULL REFERENCES accounts (id),
  rev        bigint NOT NULL,
  kind       text NOT NULL,
  type       text NOT NULL,
  record     jsonb NOT NULL,
  created    bigint NOT NULL,
  PRIMARY KEY (account_id, rev)
);
CREATE TABLE webhook_deliveries (
  account_id  bigint NOT NULL,
  hook_id     text NOT NULL,
  at          bigint NOT NULL,
  message_id  text NOT NULL,
  type        text NOT NULL,
  rev         bigint NOT NULL,
  status      integer,
  error       text,
  -- No key to webhooks but the account's (sharding): a hook's log goes with it in remove().
  duration_ms integer NOT NULL
);
CREATE INDEX webhook_deliveries_by_hook ON webhook_deliveries (account_id, hook_id, at);
${(['task', 'project', 'context'] as const).map((kind) => outboxTrigger(kind)).join('\n')}
`;

/** Issue #24: a task's reminder firing is delivered as `reminder.due`. */
export const REMINDER_EVENTS = outboxFunction('task', 'CREATE OR REPLACE', true, false);

/** Migration 14: every kind's outbox function, as before, and notifying `outbox` (outboxFunction). */
export const OUTBOX_NOTIFICATIONS = (['task', 'project', 'context'] as const)
  .map((kind) => outboxFunction(kind, 'CREATE OR REPLACE', kind === 'task', true))
  .join('\n');

/** Issue #24: a hook for some events alone costs the other changes nothing. */
export const WANTED_EVENTS = SYNC_KINDS.map((kind) => wantedOutboxFunction(kind, 'CREATE OR REPLACE')).join('\n');

/** Issue #24: a change's commit writes a short outbox row naming it, not a copy of the record. */
export const NAMED_OUTBOX = `
ALTER TABLE webhook_outbox ALTER COLUMN record DROP NOT NULL;
${SYNC_KINDS.map((kind) => {
  const table = KIND_STORAGE[kind].table;
  return `${wantedOutboxFunction(kind, 'CREATE OR REPLACE', true)}
DROP TRIGGER ${table}_outbox ON ${table};
${namedOutboxTrigger(kind)}`;
}).join('\n')}
`;

/**
 * Issue #24, migration 17: a commit notifies the change feed once. Its note names the outbox too,
 * "<account id> <kind> outbox", when the change was written there; the outbox's own notification,
 * a second one in each commit of an account with a hook, had cost a create on PostgreSQL about as
 * much as the sender's work (bench part W). The outbox functions no longer notify; the change
 * triggers (\`<table>_told\`, renamed from \`_notify\`: PostgreSQL fires a table's triggers in the
 * order of their names) fire after them and look for the change's outbox row.
 */
export const ONE_NOTIFICATION = `
${SYNC_KINDS.map((kind) => wantedOutboxFunction(kind, 'CREATE OR REPLACE', true, false)).join('\n')}
CREATE OR REPLACE FUNCTION notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM webhook_outbox WHERE account_id = NEW.account_id AND rev = NEW.rev) THEN
    PERFORM pg_notify('${CHANGE_CHANNEL}', NEW.account_id::text || ' ' || TG_ARGV[0] || ' ${OUTBOX_NOTE}');
  ELSE
    PERFORM pg_notify('${CHANGE_CHANNEL}', NEW.account_id::text || ' ' || TG_ARGV[0]);
  END IF;
  RETURN NULL;
END $$;
${SYNC_KINDS.map((kind) => {
  const table = KIND_STORAGE[kind].table;
  return `ALTER TRIGGER ${table}_notify ON ${table} RENAME TO ${table}_told;`;
}).join('\n')}
`;

/** The account's outbox after a rev (outboxEventsSql). */
export const EVENTS_SQL = outboxEventsSql(recordJson, '$1', '$2', '$3');
