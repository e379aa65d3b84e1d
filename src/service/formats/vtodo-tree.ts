import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import type { PortableTask } from '../../domain/portable.js';
import { TASK_LIMITS, type Reminder } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { wallClockAtOffset } from '../../domain/zone.js';

/*
 * A task's place and reminders in a VTODO (issue #22; the mapping table of CALDAV.md):
 * RELATED-TO;RELTYPE=PARENT the parent's id, X-APPLE-SORT-ORDER the order, and one VALARM per
 * reminder, its TRIGGER absolute (`VALUE=DATE-TIME`, UTC) or relative to the start or the due
 * date (`RELATED=START|END`, a negative duration), its UID the reminder's id.
 */

const MINUTE: Micros = 60_000_000;

function utcText(us: Micros): string {
  const clock = wallClockAtOffset(us, 0);
  const two = (value: number): string => String(value).padStart(2, '0');
  return `${String(clock.year).padStart(4, '0')}-${two(clock.month)}-${two(clock.day)}T${two(clock.hour)}:${two(clock.minute)}:${two(clock.second)}Z`;
}

/** The properties of a task's place: its parent and its order. */
export function treeProperties(task: PortableTask): ICAL.Property[] {
  const properties: ICAL.Property[] = [];
  if (task.parentId !== null)
    properties.push(new ICAL.Property(['related-to', { reltype: 'PARENT' }, 'text', task.parentId]));
  if (task.sortOrder !== 0)
    properties.push(new ICAL.Property(['x-apple-sort-order', {}, 'unknown', String(task.sortOrder)]));
  return properties;
}

/** Whether two reminders are the same one, saying the same. */
export function sameReminder(a: Reminder, b: Reminder): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One VALARM per reminder, shown with the task's title. */
export function alarmsOf(task: PortableTask, reminders: readonly Reminder[] = task.reminders): ICAL.Component[] {
  return reminders.map((reminder) => {
    const alarm = new ICAL.Component('valarm');
    alarm.addPropertyWithValue('uid', reminder.id);
    alarm.addPropertyWithValue('action', 'DISPLAY');
    alarm.addPropertyWithValue('description', task.title);
    if ('at' in reminder) {
      alarm.addProperty(new ICAL.Property(['trigger', {}, 'date-time', utcText(reminder.at)]));
    } else {
      const related = reminder.of === 'start' ? 'START' : 'END';
      const duration = ICAL.Duration.fromSeconds(-reminder.before * 60);
      alarm.addProperty(new ICAL.Property(['trigger', { related }, 'duration', duration.toString()]));
    }
    return alarm;
  });
}

/** The parent a VTODO names (RELATED-TO with RELTYPE PARENT, its default), as a task id. */
export function parentOf(todo: ICAL.Component, idOf: (uid: string) => string): string | null {
  for (const property of todo.getAllProperties('related-to')) {
    const reltype = property.getParameter('reltype');
    if (reltype !== undefined && reltype !== null && String(reltype).toUpperCase() !== 'PARENT') continue;
    const value: unknown = property.getFirstValue();
    if (typeof value === 'string' && value !== '') return idOf(value);
  }
  return null;
}

export function sortOrderOf(todo: ICAL.Component): number {
  const value: unknown = todo.getFirstPropertyValue('x-apple-sort-order');
  const order = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(order) && order >= TASK_LIMITS.sortOrderMin && order <= TASK_LIMITS.sortOrderMax ? order : 0;
}

/** A reminder id from a VALARM's UID, or made from its trigger (the same every time it is read). */
function reminderId(alarm: ICAL.Component, taskUid: string, trigger: string): string {
  const uid: unknown = alarm.getFirstPropertyValue('uid');
  if (typeof uid === 'string' && TASK_LIMITS.idPattern.test(uid)) return uid;
  return `alarm-${createHash('sha256').update(`${taskUid}\n${trigger}`).digest('base64url').slice(0, 16)}`;
}

/**
 * The reminders of a VTODO's VALARMs, and the alarms no reminder stands for (a trigger after the
 * date, more than four weeks before it, or past the ten a task keeps), which the caller keeps.
 */
export function remindersOf(
  todo: ICAL.Component,
  taskUid: string,
): { reminders: Reminder[]; others: ICAL.Component[] } {
  const reminders: Reminder[] = [];
  const others: ICAL.Component[] = [];
  for (const component of todo.getAllSubcomponents()) {
    const reminder = component.name === 'valarm' ? reminderOfAlarm(component, taskUid) : undefined;
    if (reminder === undefined || reminders.length >= TASK_LIMITS.remindersMax) others.push(component);
    else reminders.push(reminder);
  }
  return { reminders, others };
}

export function reminderOfAlarm(alarm: ICAL.Component, taskUid: string): Reminder | undefined {
  const trigger = alarm.getFirstProperty('trigger');
  if (trigger === null) return undefined;
  const value: unknown = trigger.getFirstValue();
  const id = reminderId(alarm, taskUid, trigger.toICALString());
  if (value instanceof ICAL.Time) return { id, at: Math.round(value.toUnixTime() * 1_000_000) };
  if (!(value instanceof ICAL.Duration)) return undefined;
  const minutes = -value.toSeconds() / 60;
  if (!Number.isInteger(minutes) || minutes < 0 || minutes * MINUTE > TASK_LIMITS.reminderBeforeMax * MINUTE) {
    return undefined;
  }
  const related = String(trigger.getParameter('related') ?? 'START').toUpperCase();
  return { id, before: minutes, of: related === 'END' ? 'end' : 'start' };
}
