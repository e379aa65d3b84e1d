import { nextReminderDue } from '../domain/reminders.js';
import type { Clock } from '../domain/time.js';
import type { DueReminder, Store } from '../store/store.js';

/**
 * The firing of reminders (API.md 4.5). A firing is claimed in the store: one write of the task
 * that moves its next reminder (`reminderDue`) on from the time that fell due, if it is still that
 * time. The engine's outbox trigger writes that change as a `reminder.due` delivery in the same
 * commit, and the account's lock makes the check and the move one step, so of several processes
 * only one claims each firing.
 */
export class ReminderService {
  constructor(
    private readonly store: Store,
    readonly clock: Clock,
  ) {}

  /** The reminders due now, of every account, earliest first (administration). */
  due(limit: number): Promise<readonly DueReminder[]> {
    return this.store.dueReminders(this.clock(), limit);
  }

  /**
   * Claims the firing: true when this call made it, false when it was made already or the task
   * changed meanwhile. The next time counts from the one that fired, so each reminder of the task
   * fires once, also those missed while the service was down.
   */
  claim(reminder: DueReminder): Promise<boolean> {
    return this.store.write(reminder.accountId, async (tx) => {
      const task = await tx.get('task', reminder.taskId);
      if (task === undefined || task.reminderDue !== reminder.due) return false;
      await tx.put('task', { ...task, reminderDue: nextReminderDue(task, reminder.due) });
      return true;
    });
  }
}
