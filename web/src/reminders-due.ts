/**
 * When a task's reminders fall due (API.md 4.5), from the tasks the app has: an absolute one at its
 * time, a relative one `before` minutes before the task's start or deadline (of the current
 * occurrence, for a repeating task), none without that date; an open task's only. The server fires
 * them for webhooks; the wire does not say when it did, so the app works out the same times.
 */
import type { Task } from './api.ts';

export interface Firing {
  /** The task and the instant: one notification per task and time, a new occurrence a new one. */
  readonly key: string;
  readonly taskId: string;
  readonly title: string;
  readonly at: number;
}

export function firingsOf(task: Task): Firing[] {
  if (task.completed !== null || task.trashed !== null || task.deleted !== null) return [];
  const firings: Firing[] = [];
  for (const reminder of task.reminders ?? []) {
    let at: number | null;
    if ('at' in reminder) at = reminder.at;
    else {
      const anchor = reminder.of === 'start_at' ? task.startAt : task.endAt;
      at = anchor === null ? null : anchor - reminder.before * 60_000;
    }
    if (at !== null) firings.push({ key: `${task.id}/${at}`, taskId: task.id, title: task.title, at });
  }
  return firings;
}

/** The firings in (`after`, `until`], and the first one after `until` (when to look again). */
export function dueBetween(
  tasks: Iterable<Task>,
  after: number,
  until: number,
): { readonly due: Firing[]; readonly next: number | null } {
  const due: Firing[] = [];
  let next: number | null = null;
  for (const task of tasks) {
    for (const firing of firingsOf(task)) {
      if (firing.at > after && firing.at <= until) due.push(firing);
      else if (firing.at > until && (next === null || firing.at < next)) next = firing.at;
    }
  }
  due.sort((a, b) => a.at - b.at);
  return { due, next };
}
