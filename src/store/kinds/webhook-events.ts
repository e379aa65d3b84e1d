import { SYNC_KINDS, type SyncKind } from '../../domain/sync.js';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../../domain/webhook.js';
import { isSyncKind } from './kept-outcome.js';
import { KIND_STORAGE } from './records.js';

/** The kind of an outbox row, as the triggers wrote it. */
export function outboxKind(raw: unknown): SyncKind {
  if (!isSyncKind(raw)) throw new Error(`an outbox row names no kind: ${String(raw)}`);
  return raw;
}

/** An event name as stored (an outbox row, a delivery log), checked. */
export function storedEvent(raw: unknown): WebhookEvent {
  const known = WEBHOOK_EVENTS.find((name) => name === raw);
  if (known === undefined) throw new Error(`not an event: ${String(raw)}`);
  return known;
}

/**
 * The account's outbox after a rev, oldest first, each row with its record as a JSON object: the
 * one the row keeps, else the row of that rev in the kind's table (from SQLite's migration 13 and
 * PostgreSQL's 16 a row names its change while the record's row stands). `recordJson` builds an
 * engine's JSON object of a row; `account`, `afterRev` and `limit` are its placeholders.
 */
export function outboxEventsSql(
  recordJson: (kind: SyncKind, row: string) => string,
  account: string,
  afterRev: string,
  limit: string,
): string {
  const live = SYNC_KINDS.map(
    (kind) => `WHEN '${kind}' THEN (SELECT ${recordJson(kind, 'r')} FROM ${KIND_STORAGE[kind].table} r
      WHERE r.account_id = o.account_id AND r.rev = o.rev)`,
  );
  return `SELECT o.rev, o.kind, o.type, o.created, coalesce(o.record, CASE o.kind
  ${live.join('\n  ')}
  END) AS record
  FROM webhook_outbox o WHERE o.account_id = ${account} AND o.rev > ${afterRev} ORDER BY o.rev LIMIT ${limit}`;
}

/** An outbox row's record as outboxEventsSql read it; absent only if a trigger failed to keep it. */
export function outboxRecord<T>(record: T | null, rev: unknown): T {
  if (record === null) throw new Error(`the outbox row of rev ${String(rev)} has no record to read`);
  return record;
}

/**
 * Of an active hook `w`: it has a change to deliver that is due at `now` (an engine's placeholder)
 * and no live lease. What the sender's lookups find.
 */
export function hookDueSql(now: string): string {
  return `(w.next_attempt IS NULL OR w.next_attempt <= ${now}) AND w.lease_until < ${now}
  AND EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.account_id = w.account_id AND o.rev > w.delivered_rev)`;
}
