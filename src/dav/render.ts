import ICAL from 'ical.js';
import type { Task } from '../domain/task.js';
import type { Micros } from '../domain/time.js';
import { calendarText, newCalendar, vtodoOf } from '../service/formats/vtodo.js';
import { occurrences } from './filters.js';
import type { CalendarDataRequest } from './requests.js';

/** A task as CalDAV serves it: a VCALENDAR holding its VTODO (formats/vtodo.ts, `caldav` dialect). */

const NO_NAMES: ReadonlyMap<string, string> = new Map();

export function calendarOf(task: Task, zone: string): ICAL.Component {
  const calendar = newCalendar();
  calendar.addSubcomponent(
    vtodoOf(task, {
      zone,
      names: NO_NAMES,
      dtstamp: task.updated,
      stamps: { created: task.created, updated: task.updated },
      dialect: 'caldav',
    }),
  );
  return calendar;
}

export function icsOf(task: Task, zone: string): string {
  return calendarText(calendarOf(task, zone));
}

function utcTime(us: Micros): ICAL.Time {
  return ICAL.Time.fromJSDate(new Date(Math.floor(us / 1000)), true);
}

/** RFC 4791 9.6.5: each occurrence in the range as a VTODO of its own, in UTC, without the rule. */
function expanded(task: Task, calendar: ICAL.Component, zone: string, range: { start?: number; end?: number }): void {
  const master = calendar.getFirstSubcomponent('vtodo');
  if (master === null || task.repeater === null) return;
  calendar.removeSubcomponent(master);
  for (const occurrence of occurrences(task, zone)) {
    const anchor = occurrence.startAt ?? occurrence.endAt;
    if (anchor === null || (range.end !== undefined && anchor >= range.end)) break;
    const last = occurrence.endAt ?? occurrence.startAt;
    if (range.start !== undefined && last !== null && last < range.start) continue;
    const copy = new ICAL.Component(ICAL.helpers.clone(master.toJSON(), true));
    copy.removeAllProperties('rrule');
    for (const [name, at] of [
      ['dtstart', occurrence.startAt],
      ['due', occurrence.endAt],
    ] as const) {
      copy.removeAllProperties(name);
      if (at !== null) copy.addPropertyWithValue(name, utcTime(at));
    }
    copy.addPropertyWithValue('recurrence-id', utcTime(anchor));
    calendar.addSubcomponent(copy);
  }
}

/** The calendar-data a REPORT asked for: all of it, a selection of properties, or expanded. */
export function calendarDataOf(task: Task, zone: string, request: CalendarDataRequest | undefined): string {
  const calendar = calendarOf(task, zone);
  if (request === undefined) return calendarText(calendar);
  if (!request.todo) {
    for (const todo of calendar.getAllSubcomponents('vtodo')) calendar.removeSubcomponent(todo);
  }
  const wanted = request.todoProperties;
  if (wanted !== undefined) {
    for (const todo of calendar.getAllSubcomponents('vtodo')) {
      for (const property of todo.getAllProperties()) if (!wanted.has(property.name)) todo.removeProperty(property);
    }
  }
  if (request.expand !== undefined) expanded(task, calendar, zone, request.expand);
  return calendarText(calendar);
}
