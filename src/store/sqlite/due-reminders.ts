import type { Micros } from '../../domain/time.js';
import type { DueReminder } from '../store.js';
import type { SqliteDatabase } from './connection.js';

/** The due-reminder read of every account, on the index of reminder_due alone (migration 9). */
export function prepareDueReminders(db: SqliteDatabase): (until: Micros, limit: number) => DueReminder[] {
  const statement = db.prepare<
    [until: number, limit: number],
    { account_id: number; id: string; reminder_due: number }
  >(
    `SELECT account_id, id, reminder_due FROM tasks INDEXED BY tasks_reminder_due
     WHERE reminder_due IS NOT NULL AND reminder_due <= ? ORDER BY reminder_due LIMIT ?`,
  );
  return (until, limit) =>
    statement.all(until, limit).map((row) => ({ accountId: row.account_id, taskId: row.id, due: row.reminder_due }));
}
