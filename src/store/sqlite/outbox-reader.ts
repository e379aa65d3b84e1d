import type { OutboxReader } from '../webhook-store.js';
import { openReadConnection } from './connection.js';
import { outboxEventsOn } from './outbox-events.js';

/**
 * The outbox of the store at `file`, read over a read connection of its own: in WAL mode it sees
 * each commit once made and never waits for the writer, so the thread that reads it takes no
 * turn on the write connection (issue #24).
 */
export function openSqliteOutboxReader(file: string): OutboxReader {
  const db = openReadConnection(file);
  try {
    return { events: outboxEventsOn(db), close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
