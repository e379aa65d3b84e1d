import ICAL from 'ical.js';
import type { PortableAccount } from '../../domain/portable.js';
import type { Micros } from '../../domain/time.js';
import { FormatError } from './account-json.js';
import { calendarText, newCalendar, readTodo, vtodoOf } from './vtodo.js';

/**
 * The calendar file of export and import: every task of the account as a VTODO of one VCALENDAR
 * (vtodo.ts maps each, in its `file` dialect: the project, context, box and trash in properties
 * of our own, X-TASK-SERVICE-PROJECT, -CONTEXT, -ATTRIBUTE, -TRASHED, by name).
 *
 * Every other property of a VTODO read is kept on its task (`icalExtras`: its content line, in
 * the file's order, while they fit TASK_LIMITS.icalExtrasMax; one that does not fit is listed
 * among what was not mapped) and written again by `writeIcs`, so it survives an import, the
 * store and an export.
 */

/** The account's tasks as one VCALENDAR, each with the properties it kept. */
export function writeIcs(data: PortableAccount, zone: string, exported: Micros): string {
  const calendar = newCalendar();
  const names = new Map<string, string>([
    ...data.projects.map((project): [string, string] => [project.id, project.name]),
    ...data.contexts.map((context): [string, string] => [context.id, context.name]),
  ]);
  for (const task of data.tasks) {
    calendar.addSubcomponent(vtodoOf(task, { zone, names, dtstamp: exported, dialect: 'file' }));
  }
  return calendarText(calendar);
}

/** Every VTODO of a calendar file as tasks, with what could not be mapped. */
export function readIcs(source: string, zone: string): PortableAccount {
  let calendar: ICAL.Component;
  try {
    calendar = new ICAL.Component(ICAL.parse(source));
  } catch (error) {
    throw new FormatError(`not iCalendar: ${error instanceof Error ? error.message : String(error)}`);
  }
  const todos = calendar.name === 'vtodo' ? [calendar] : calendar.getAllSubcomponents('vtodo');
  const read = todos.map((todo, index) => readTodo(todo, { zone, dialect: 'file' }, index));
  const others = calendar.getAllSubcomponents().filter((component) => !['vtodo', 'vtimezone'].includes(component.name));
  const skipped =
    others.length === 0 ? [] : [`${others.length} components other than VTODO (events, journals) left out`];
  return {
    projects: [],
    contexts: [],
    tasks: read.map((entry) => entry.task),
    unmapped: [...read.flatMap((entry) => entry.unmapped), ...skipped],
  };
}
