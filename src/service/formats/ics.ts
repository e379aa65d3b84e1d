import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { contentLineProblem, icalExtraLines, withExtraLine } from '../../domain/ical-extras.js';
import type { PortableAccount, PortableTask } from '../../domain/portable.js';
import { isValidRepeater } from '../../domain/repeat.js';
import { ATTRIBUTES, TASK_LIMITS, type Attribute, type LabelRef, type Priority } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { instantOfWallClock, isValidTimeZone, wallClockOf, type WallClock } from '../../domain/zone.js';
import { FormatError } from './account-json.js';

/**
 * iCalendar VTODO (RFC 5545) both ways, read and written with ical.js. A task is a VTODO:
 *
 * - UID the task id; SUMMARY the title; DESCRIPTION the notes;
 * - DTSTART and DUE the start and end: `VALUE=DATE` (the account's local date) for an all-day
 *   task, otherwise UTC; read back also with `TZID=<IANA zone>` (and floating times, taken in the
 *   account's zone);
 * - COMPLETED and STATUS (COMPLETED or NEEDS-ACTION); PRIORITY (1 high, 5 medium, 9 low);
 *   CATEGORIES the tags; RRULE the repeater;
 * - the project, context, list (attribute) and trash in properties of our own
 *   (X-TASK-SERVICE-PROJECT, -CONTEXT, -ATTRIBUTE, -TRASHED), by name.
 *
 * Every other property of a VTODO read is kept on its task (`icalExtras`: its content line, in
 * the file's order, while they fit TASK_LIMITS.icalExtrasMax; one that does not fit is listed
 * among what was not mapped) and written again by `writeIcs`, so it survives an import, the
 * store and an export.
 */

const PROJECT = 'x-task-service-project';
const CONTEXT = 'x-task-service-context';
const ATTRIBUTE = 'x-task-service-attribute';
const TRASHED = 'x-task-service-trashed';

/** Properties a VTODO's fields come from (or that say nothing about the task, like DTSTAMP). */
const MAPPED = new Set([
  'uid',
  'dtstamp',
  'summary',
  'description',
  'dtstart',
  'due',
  'completed',
  'status',
  'priority',
  'categories',
  'rrule',
  'created',
  'last-modified',
  'sequence',
  'percent-complete',
  PROJECT,
  CONTEXT,
  ATTRIBUTE,
  TRASHED,
]);

const PRODID = '-//task-service//task-service//EN';

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

function jcalDate(clock: WallClock): string {
  return `${String(clock.year).padStart(4, '0')}-${twoDigits(clock.month)}-${twoDigits(clock.day)}`;
}

function jcalUtc(us: Micros): string {
  const clock = wallClockOf(us, 'UTC');
  return `${jcalDate(clock)}T${twoDigits(clock.hour)}:${twoDigits(clock.minute)}:${twoDigits(clock.second)}Z`;
}

function dateProperty(name: string, us: Micros, allDay: boolean, zone: string): ICAL.Property {
  return allDay
    ? new ICAL.Property([name, {}, 'date', jcalDate(wallClockOf(us, zone))])
    : new ICAL.Property([name, {}, 'date-time', jcalUtc(us)]);
}

const PRIORITY_TO_ICAL: Readonly<Record<Priority, number>> = { 0: 0, 1: 9, 2: 5, 3: 1 };

function priorityOfIcal(value: number): Priority {
  if (value <= 0 || value > 9) return 0;
  if (value < 5) return 3;
  return value === 5 ? 2 : 1;
}

function labelName(ref: LabelRef, names: ReadonlyMap<string, string>): string | undefined {
  if (ref === null) return undefined;
  if ('name' in ref) return ref.name;
  return names.get(ref.id);
}

/**
 * A kept content line as a property again. What an import kept, ical.js wrote; a line edited
 * into a JSON export by hand may still not read, and then the export says which task holds it.
 */
function keptProperty(task: PortableTask, line: string): ICAL.Property {
  try {
    return ICAL.Property.fromString(line);
  } catch (error) {
    throw new Error(
      `task ${task.id} keeps an iCalendar property that cannot be read (${line.slice(0, 60)}): ` +
        `${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function vtodoOf(task: PortableTask, zone: string, names: ReadonlyMap<string, string>, stamp: string): ICAL.Component {
  const todo = new ICAL.Component('vtodo');
  todo.addPropertyWithValue('uid', task.id);
  todo.addProperty(new ICAL.Property(['dtstamp', {}, 'date-time', stamp]));
  todo.addPropertyWithValue('summary', task.title);
  if (task.notes !== '') todo.addPropertyWithValue('description', task.notes);
  if (task.startAt !== null) todo.addProperty(dateProperty('dtstart', task.startAt, task.allDay, zone));
  if (task.endAt !== null) todo.addProperty(dateProperty('due', task.endAt, task.allDay, zone));
  if (task.completed !== null)
    todo.addProperty(new ICAL.Property(['completed', {}, 'date-time', jcalUtc(task.completed)]));
  todo.addPropertyWithValue('status', task.completed === null ? 'NEEDS-ACTION' : 'COMPLETED');
  if (task.priority !== 0) todo.addPropertyWithValue('priority', PRIORITY_TO_ICAL[task.priority]);
  if (task.tags.length > 0) todo.addProperty(new ICAL.Property(['categories', {}, 'text', ...task.tags]));
  if (task.repeater !== null) {
    todo.addProperty(
      new ICAL.Property(['rrule', {}, 'recur', ICAL.Recur.fromString(task.repeater.replace(/^RRULE:/i, '')).toJSON()]),
    );
  }
  const project = labelName(task.project, names);
  if (project !== undefined) todo.addPropertyWithValue(PROJECT, project);
  const context = labelName(task.context, names);
  if (context !== undefined) todo.addPropertyWithValue(CONTEXT, context);
  todo.addPropertyWithValue(ATTRIBUTE, task.attribute);
  if (task.trashed !== null) todo.addProperty(new ICAL.Property([TRASHED, {}, 'date-time', jcalUtc(task.trashed)]));
  for (const line of icalExtraLines(task.icalExtras)) todo.addProperty(keptProperty(task, line));
  return todo;
}

/** The account's tasks as one VCALENDAR, each with the properties it kept from an import. */
export function writeIcs(data: PortableAccount, zone: string, exported: Micros): string {
  const calendar = new ICAL.Component('vcalendar');
  calendar.addPropertyWithValue('version', '2.0');
  calendar.addPropertyWithValue('prodid', PRODID);
  const names = new Map<string, string>([
    ...data.projects.map((project): [string, string] => [project.id, project.name]),
    ...data.contexts.map((context): [string, string] => [context.id, context.name]),
  ]);
  const stamp = jcalUtc(exported);
  for (const task of data.tasks) {
    calendar.addSubcomponent(vtodoOf(task, zone, names, stamp));
  }
  // RFC 5545 lines end in CRLF.
  return `${calendar.toString().replace(/\r?\n/g, '\r\n')}\r\n`;
}

const JCAL_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(Z)?)?$/;

/** A DTSTART, DUE or COMPLETED as an instant: UTC, TZID (an IANA zone), floating or a date. */
function instantOf(property: ICAL.Property, zone: string): { readonly at: Micros; readonly isDate: boolean } | string {
  const raw: unknown = property.jCal[3];
  const match = typeof raw === 'string' ? JCAL_TIME.exec(raw) : null;
  if (match === null) return `${property.name.toUpperCase()} ${String(raw)} is no date or time`;
  const [, year, month, day, hour, minute, second, utc] = match;
  const clock: WallClock = {
    year: Number(year),
    month: Number(month),
    day: Number(day),
    hour: Number(hour ?? 0),
    minute: Number(minute ?? 0),
    second: Number(second ?? 0),
  };
  if (hour === undefined) return { at: instantOfWallClock(clock, zone), isDate: true };
  if (utc !== undefined) return { at: instantOfWallClock(clock, 'UTC'), isDate: false };
  const tzid = property.getParameter('tzid');
  if (typeof tzid === 'string') {
    if (!isValidTimeZone(tzid)) return `${property.name.toUpperCase()} is in TZID ${tzid}, which is no IANA zone`;
    return { at: instantOfWallClock(clock, tzid), isDate: false };
  }
  return { at: instantOfWallClock(clock, zone), isDate: false };
}

function text(todo: ICAL.Component, name: string): string | undefined {
  const value: unknown = todo.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : value === null ? undefined : String(value);
}

/** A task id from a UID: itself when it is a valid id, else a hash of it (the same every time). */
function idOfUid(uid: string): string {
  if (TASK_LIMITS.idPattern.test(uid)) return uid;
  return `ics-${createHash('sha256').update(uid).digest('base64url').slice(0, 22)}`;
}

interface ReadTodo {
  readonly task: PortableTask;
  readonly unmapped: string[];
}

/** The content lines of the properties no field takes, as many as fit, and those that did not. */
function extrasOf(todo: ICAL.Component, where: string): { icalExtras: string; notKept: string[] } {
  let icalExtras = '';
  const notKept: string[] = [];
  for (const property of todo.getAllProperties()) {
    if (MAPPED.has(property.name)) continue;
    const line = property.toICALString();
    const problem = contentLineProblem(line);
    const kept = problem === undefined ? withExtraLine(icalExtras, line) : undefined;
    if (kept === undefined) {
      const why = problem ?? `a task keeps at most ${TASK_LIMITS.icalExtrasMax} characters of them`;
      notKept.push(`${where}: ${property.name.toUpperCase()} not kept (${why})`);
    } else {
      icalExtras = kept;
    }
  }
  return { icalExtras, notKept };
}

function readTodo(todo: ICAL.Component, zone: string, index: number): ReadTodo {
  const uid = text(todo, 'uid') ?? `vtodo-${index}`;
  const where = `VTODO ${uid}`;
  const extras = extrasOf(todo, where);
  const unmapped: string[] = [...extras.notKept];
  const inner = todo.getAllSubcomponents().map((component) => component.name.toUpperCase());
  if (inner.length > 0)
    unmapped.push(`${where}: ${inner.join(', ')} left out (components inside a VTODO are not kept)`);
  const dateOf = (name: string): { at: Micros; isDate: boolean } | null => {
    const property = todo.getFirstProperty(name);
    if (property === null) return null;
    const found = instantOf(property, zone);
    if (typeof found === 'string') {
      unmapped.push(`${where}: ${found}`);
      return null;
    }
    return found;
  };
  const start = dateOf('dtstart');
  const due = dateOf('due');
  const completedAt = dateOf('completed');
  const trashed = dateOf(TRASHED);
  const status = text(todo, 'status')?.toUpperCase();
  const completed =
    completedAt?.at ?? (status === 'COMPLETED' ? ((dateOf('last-modified') ?? dateOf('dtstamp'))?.at ?? null) : null);
  if (status === 'COMPLETED' && completed === null) unmapped.push(`${where}: STATUS:COMPLETED without a date (open)`);
  if (status === 'CANCELLED') unmapped.push(`${where}: STATUS:CANCELLED (imported as an open task)`);

  let repeater: string | null = null;
  const rule: unknown = todo.getFirstPropertyValue('rrule');
  if (rule instanceof ICAL.Recur) {
    const ruleText = rule.toString();
    if (isValidRepeater(ruleText) && (start !== null || due !== null)) repeater = ruleText;
    else unmapped.push(`${where}: RRULE ${ruleText} (not a rule this service repeats by, or no date to repeat from)`);
  }
  const categories = todo
    .getAllProperties('categories')
    .flatMap((property) => property.getValues().map((value: unknown) => String(value)));
  const attributeText = text(todo, ATTRIBUTE);
  const attribute: Attribute =
    ATTRIBUTES.find((candidate) => candidate === attributeText) ?? (start === null ? 'inbox' : 'plan');
  const priorityValue: unknown = todo.getFirstPropertyValue('priority');
  const project = text(todo, PROJECT);
  const context = text(todo, CONTEXT);
  const title = text(todo, 'summary') ?? '';
  if (title === '') unmapped.push(`${where}: no SUMMARY (imported as "(untitled)")`);
  return {
    task: {
      id: idOfUid(uid),
      title: title === '' ? '(untitled)' : title,
      notes: text(todo, 'description') ?? '',
      attribute: attribute === 'plan' && start === null ? 'next' : attribute,
      allDay: (start ?? due)?.isDate ?? false,
      startAt: start?.at ?? null,
      endAt: due?.at ?? null,
      completed,
      trashed: trashed?.at ?? null,
      project: project === undefined ? null : { name: project },
      context: context === undefined ? null : { name: context },
      tags: [...new Set(categories)],
      priority: typeof priorityValue === 'number' ? priorityOfIcal(priorityValue) : 0,
      repeater,
      icalExtras: extras.icalExtras,
    },
    unmapped,
  };
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
  const read = todos.map((todo, index) => readTodo(todo, zone, index));
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
