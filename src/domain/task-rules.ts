import { invalid } from './errors.js';
import { icalExtrasProblem } from './ical-extras.js';
import { NEW_TASK, type Label, type Task, type TaskDraft, type TaskInput } from './task.js';
import type { Micros } from './time.js';
import { isValidRepeater, nextOccurrence } from './repeat.js';
import { startOfDay } from './zone.js';
import { nextReminderDue, remindersOf } from './reminders.js';

/** What the use case resolved before the rules run: a fresh id, labels looked up by name or id. */
export interface MergeContext {
  readonly newId: string;
  readonly zone: string;
  /** undefined: the request did not touch it. */
  readonly project: Label | null | undefined;
  readonly context: Label | null | undefined;
  /** The time of the change: reminders that fell due before it are not planned again. */
  readonly now: Micros;
  /** An id for a new reminder. */
  readonly newReminderId: () => string;
}

function pick<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/**
 * Applies a client's change to a task (or creates one) and checks the rules that span fields.
 * Absent fields keep their value, so a client may send back the whole task it read.
 */
export function mergeTask(existing: Task | undefined, input: TaskInput, context: MergeContext): TaskDraft {
  if (existing === undefined && input.title === undefined) {
    // A change to an id that does not exist creates a task of that id, which needs a title: say so,
    // as the client most likely meant to change a task it believes is there.
    throw invalid(
      'title',
      input.id === undefined ? 'required' : 'required: no task has this id, so this would create one',
    );
  }
  const base: TaskDraft = existing ?? { ...NEW_TASK, id: input.id ?? context.newId };

  const allDay = pick(input.allDay, base.allDay);
  const dayOf = (value: Micros | null): Micros | null =>
    value !== null && allDay ? startOfDay(value, context.zone) : value;
  const startAt = dayOf(pick(input.startAt, base.startAt));
  const endAt = dayOf(pick(input.endAt, base.endAt));
  const attribute =
    input.attribute ?? (existing === undefined ? (startAt === null ? 'inbox' : 'plan') : base.attribute);

  if (attribute === 'plan' && startAt === null) throw invalid('attribute', 'plan needs start_at');
  if (startAt !== null && endAt !== null && endAt < startAt) throw invalid('end_at', 'before start_at');
  if (input.repeater !== undefined && input.repeater !== null && !isValidRepeater(input.repeater)) {
    throw invalid('repeater', 'not an RFC 5545 RRULE this service supports');
  }
  // A series repeats from start_at (or end_at): a change that leaves a repeater without either
  // would be kept but never repeat. A task sent back unchanged as it is stored still passes.
  const repeater = pick(input.repeater, base.repeater);
  const anchorChanged = repeater !== base.repeater || startAt !== base.startAt || endAt !== base.endAt;
  if (repeater !== null && startAt === null && endAt === null && anchorChanged) {
    throw invalid('repeater', 'needs start_at (or end_at) to repeat from');
  }
  const icalExtrasRefused = input.icalExtras === undefined ? undefined : icalExtrasProblem(input.icalExtras);
  if (icalExtrasRefused !== undefined) throw invalid('ical_extras', icalExtrasRefused);

  // The fields without a rule of their own here take the client's value when it sent one.
  if (input.parentId !== undefined && input.parentId === base.id) {
    throw invalid('parent_id', 'a task cannot be its own parent');
  }
  const { id, project, context: contextRef, ifRev, reminders, ...sent } = input;
  const merged: TaskDraft = {
    ...base,
    ...sent,
    attribute,
    allDay,
    startAt,
    endAt,
    project: pick(context.project, base.project),
    context: pick(context.context, base.context),
    tags: input.tags === undefined ? base.tags : [...new Set(input.tags)],
    reminders: reminders === undefined ? base.reminders : remindersOf(reminders, context.newReminderId),
  };
  const moved = completesRepetition(base, merged) ? advanceRepetition(merged, context.zone) : merged;
  return { ...moved, reminderDue: nextReminderDue(moved, unfiredSince(base, context.now)) };
}

/**
 * From when the task's next reminder is planned: now, or, while a reminder whose time passed has
 * not fired yet (the firer claims it within a second), from that time, so a change in between
 * leaves it to fire (API.md 4.5).
 */
function unfiredSince(base: TaskDraft, now: Micros): Micros {
  return base.reminderDue !== null && base.reminderDue <= now ? base.reminderDue - 1 : now;
}

/** True when this change marks an open repeating task done. */
function completesRepetition(before: TaskDraft, after: TaskDraft): boolean {
  return after.repeater !== null && before.completed === null && after.completed !== null;
}

/** Whether an instant fits a Micros exactly (a safe integer: up to 2255-06-05). */
function representable(value: Micros | null): boolean {
  return value === null || Number.isSafeInteger(value);
}

/**
 * A repeating task is not completed but moved to its next occurrence, while the series lasts; an
 * occurrence past the instants a Micros holds exactly ends it as well.
 */
function advanceRepetition(task: TaskDraft, zone: string): TaskDraft {
  if (task.repeater === null) return task;
  const next = nextOccurrence({ ...task, repeater: task.repeater }, zone);
  if (next === null || !representable(next.startAt) || !representable(next.endAt)) return task;
  return { ...task, startAt: next.startAt, endAt: next.endAt, repeater: next.repeater, completed: null };
}
