import { invalid } from './errors.js';
import { TASK_LIMITS, type Reminder, type ReminderInput, type TaskDraft } from './task.js';
import type { Micros } from './time.js';

const MINUTE: Micros = 60_000_000;

/**
 * A client's reminders as the task keeps them (contract section 4.5): at most ten, a relative one
 * at most four weeks before its date; each keeps the id it was sent back with, a new one gets one.
 */
export function remindersOf(inputs: readonly ReminderInput[], newId: () => string): Reminder[] {
  if (inputs.length > TASK_LIMITS.remindersMax) {
    throw invalid('reminders', `at most ${TASK_LIMITS.remindersMax}, not ${inputs.length}`);
  }
  const seen = new Set<string>();
  return inputs.map((input, index) => {
    const kept = input.id !== undefined && !seen.has(input.id) ? input.id : undefined;
    const id = kept ?? newId();
    seen.add(id);
    if ('at' in input) return { id, at: input.at };
    if (!Number.isInteger(input.before) || input.before < 0 || input.before > TASK_LIMITS.reminderBeforeMax) {
      throw invalid(`reminders[${index}].before`, `minutes from 0 to ${TASK_LIMITS.reminderBeforeMax}`);
    }
    return { id, before: input.before, of: input.of };
  });
}

/** When a reminder fires for the task as it is now (its current occurrence), or null when never. */
export function fireTime(reminder: Reminder, task: Pick<TaskDraft, 'startAt' | 'endAt'>): Micros | null {
  if ('at' in reminder) return reminder.at;
  const anchor = reminder.of === 'start' ? task.startAt : task.endAt;
  return anchor === null ? null : anchor - reminder.before * MINUTE;
}

/**
 * The first time after `after` at which one of the task's reminders fires, or null: an open task's
 * only. A repeating task's relative reminders count from its current occurrence, which completing
 * it moves on, so each occurrence gets its own.
 */
export function nextReminderDue(task: TaskDraft, after: Micros): Micros | null {
  if (task.completed !== null || task.trashed !== null || task.deleted !== null) return null;
  let next: Micros | null = null;
  for (const reminder of task.reminders) {
    const at = fireTime(reminder, task);
    if (at !== null && at > after && (next === null || at < next)) next = at;
  }
  return next;
}
