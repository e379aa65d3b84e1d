import type { OutboxEvent } from '../../domain/webhook.js';
import { outboxKind, outboxRecord, storedEvent } from '../kinds/webhook-events.js';
import type { SqliteDatabase } from './connection.js';
import { SQLITE_KINDS } from './kind-statements.js';
import { EVENTS_SQL } from './webhook-schema.js';

interface OutboxRow {
  readonly rev: number;
  readonly kind: string;
  readonly type: string;
  readonly record: string | null;
  readonly created: number;
}

/**
 * The account's outbox after a rev, read and decoded on `db`: the write connection (the store's
 * `events`, queued after the writes before it) or a read connection of the delivery thread's own
 * (outbox-reader.ts). Prepared once.
 */
export function outboxEventsOn(
  db: SqliteDatabase,
): (accountId: number, afterRev: number, limit: number) => readonly OutboxEvent[] {
  const statement = db.prepare<[number, number, number], OutboxRow>(EVENTS_SQL);
  return (accountId, afterRev, limit) =>
    statement.all(accountId, afterRev, limit).map((row) => {
      const kind = outboxKind(row.kind);
      const columns: Record<string, unknown> = JSON.parse(outboxRecord(row.record, row.rev));
      return {
        rev: row.rev,
        type: storedEvent(row.type),
        kind,
        record: SQLITE_KINDS[kind].fromObject(columns),
        created: row.created,
      };
    });
}
