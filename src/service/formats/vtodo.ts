import { createHash } from 'node:crypto';
import ICAL from 'ical.js';
import { contentLineProblem, icalExtrasProblem, withExtraLine } from '../../domain/ical-extras.js';
import { NEW_PORTABLE_TASK, type PortableTask } from '../../domain/portable.js';
import { isValidRepeater } from '../../domain/repeat.js';
import {
  ATTRIBUTES,
  TASK_FIELDS,
  TASK_LIMITS,
  type Attribute,
  type LabelRef,
  type Priority,
} from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import {
  instantOfWallClock,
  isValidTimeZone,
  wallClockAtOffset,
  wallClockOf,
  type WallClock,
} from '../../domain/zone.js';

/**
 * One task as one VTODO (RFC 5545) and back, with ical.js: the one mapping, used by the calendar
 * file of export and import (`file`) and by CalDAV (`caldav`). They differ only in where the
 * task's labels and box go: a file carries the project, context, box and trash in properties of
 * our own; a CalDAV collection is the project, the context is a category starting with `@`, the
 * box is X-TASK-SERVICE-BOX, and trashed tasks are in no collection.
 *
 * - UID the task id; SUMMARY the title; DESCRIPTION the notes;
 * - DTSTART and DUE the start and end: `VALUE=DATE` (the account's local date) for an all-day
 *   task, otherwise UTC; read back also with `TZID=<IANA zone>` (and floating times, taken in the
 *   account's zone);
 * - COMPLETED, STATUS and PERCENT-COMPLETE the completion; PRIORITY (1 high, 5 medium, 9 low);
 *   CATEGORIES the tags; RRULE the repeater.
 *
 * Everything else of a VTODO is kept on its task (Task.icalExtras) and written again: properties
 * no field takes, and in CalDAV also sub-components (a VALARM) and the client's own lines of a
 * mapped property (`DTSTART;TZID=…`, `STATUS:IN-PROCESS`, a UID that is no id), which are served
 * in place of the server's while they still say what the task says.
 */

export type VtodoDialect = 'file' | 'caldav';

const OWN = {
  project: 'x-task-service-project',
  context: 'x-task-service-context',
  attribute: 'x-task-service-attribute',
  box: 'x-task-service-box',
  trashed: 'x-task-service-trashed',
  /** CalDAV: the name a client stored the task under, when it is not `<id>.ics`. */
  resourceName: 'x-task-service-resource',
} as const;

/** The property a task's box is in, per dialect. */
const BOX_PROPERTY: Readonly<Record<VtodoDialect, string>> = { file: OWN.attribute, caldav: OWN.box };

/** Properties the server writes from a task's fields (TASK_FIELDS names them). */
const FIELD_PROPERTIES: ReadonlySet<string> = new Set(Object.values(TASK_FIELDS).flatMap((rule) => rule.ical));

/** Set by the server on every write: what a client sends of them is not kept. */
const STAMP_PROPERTIES: ReadonlySet<string> = new Set(['dtstamp', 'created', 'last-modified']);

/** Our own properties, by dialect: read into fields, never kept. */
const OWN_PROPERTIES: Readonly<Record<VtodoDialect, ReadonlySet<string>>> = {
  file: new Set([OWN.project, OWN.context, OWN.attribute, OWN.trashed]),
  caldav: new Set([OWN.box, OWN.resourceName]),
};

export const PRODID = '-//task-service//task-service//EN';

/** What a task's VTODO says besides its fields, when the dialect has it. */
export interface VtodoStamps {
  readonly created: Micros;
  readonly updated: Micros;
}

export interface VtodoOutput {
  readonly zone: string;
  /** Label names by id, for labels given by id (an export's). */
  readonly names: ReadonlyMap<string, string>;
  /** DTSTAMP: the export's time (file), the task's last change (CalDAV). */
  readonly dtstamp: Micros;
  readonly stamps?: VtodoStamps;
  readonly dialect: VtodoDialect;
}

function twoDigits(value: number): string {
  return String(value).padStart(2, '0');
}

function jcalDate(clock: WallClock): string {
  return `${String(clock.year).padStart(4, '0')}-${twoDigits(clock.month)}-${twoDigits(clock.day)}`;
}

function jcalUtc(us: Micros): string {
  const clock = wallClockAtOffset(us, 0);
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

/** The prefix that makes a category the task's context in CalDAV. */
const CONTEXT_MARK = '@';

/** A context's category: its name, with the mark in front unless the name starts with it. */
function contextCategory(name: string): string {
  return name.startsWith(CONTEXT_MARK) ? name : `${CONTEXT_MARK}${name}`;
}

/**
 * The kept content as a component: the lines wrapped in a VTODO and read by ical.js. What a
 * client or an import kept, ical.js wrote; text edited into a JSON export by hand may still not
 * read, and then the error says which task holds it.
 */
function keptComponent(task: PortableTask): ICAL.Component {
  try {
    return new ICAL.Component(ICAL.parse(`BEGIN:VTODO\r\n${task.icalExtras}END:VTODO\r\n`));
  } catch (error) {
    throw new Error(
      `task ${task.id} keeps iCalendar content that cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The properties the fields make, in the order they are written. */
function fieldProperties(task: PortableTask, output: VtodoOutput): ICAL.Property[] {
  const { zone, names, dialect } = output;
  const properties: ICAL.Property[] = [];
  const add = (name: string, value: string | number): void => {
    const property = new ICAL.Property(name);
    property.setValue(value);
    properties.push(property);
  };
  add('uid', task.id);
  properties.push(new ICAL.Property(['dtstamp', {}, 'date-time', jcalUtc(output.dtstamp)]));
  if (output.stamps !== undefined) {
    properties.push(new ICAL.Property(['created', {}, 'date-time', jcalUtc(output.stamps.created)]));
    properties.push(new ICAL.Property(['last-modified', {}, 'date-time', jcalUtc(output.stamps.updated)]));
  }
  add('summary', task.title);
  if (task.notes !== '') add('description', task.notes);
  if (task.startAt !== null) properties.push(dateProperty('dtstart', task.startAt, task.allDay, zone));
  if (task.endAt !== null) properties.push(dateProperty('due', task.endAt, task.allDay, zone));
  if (task.completed !== null)
    properties.push(new ICAL.Property(['completed', {}, 'date-time', jcalUtc(task.completed)]));
  add('status', task.completed === null ? 'NEEDS-ACTION' : 'COMPLETED');
  if (task.priority !== 0) add('priority', PRIORITY_TO_ICAL[task.priority]);
  const context = labelName(task.context, names);
  const categories =
    dialect === 'caldav' && context !== undefined ? [contextCategory(context), ...task.tags] : task.tags;
  if (categories.length > 0) properties.push(new ICAL.Property(['categories', {}, 'text', ...categories]));
  if (task.repeater !== null) {
    const rule = ICAL.Recur.fromString(task.repeater.replace(/^RRULE:/i, '')).toJSON();
    properties.push(new ICAL.Property(['rrule', {}, 'recur', rule]));
  }
  if (dialect === 'file') {
    const project = labelName(task.project, names);
    if (project !== undefined) add(OWN.project, project);
    if (context !== undefined) add(OWN.context, context);
  }
  add(BOX_PROPERTY[dialect], task.attribute);
  if (dialect === 'file' && task.trashed !== null)
    properties.push(new ICAL.Property([OWN.trashed, {}, 'date-time', jcalUtc(task.trashed)]));
  return properties;
}

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
    const zoneName = ianaZoneOf(tzid);
    if (zoneName === undefined) return `${property.name.toUpperCase()} is in TZID ${tzid}, which is no IANA zone`;
    return { at: instantOfWallClock(clock, zoneName), isDate: false };
  }
  return { at: instantOfWallClock(clock, zone), isDate: false };
}

/**
 * The IANA zone a TZID names: itself, or the IANA name it ends with, as some clients prefix theirs
 * (`/freeassociation.sourceforge.net/Europe/Berlin`, `/mozilla.org/20050126_1/Europe/Berlin`).
 */
function ianaZoneOf(tzid: string): string | undefined {
  if (isValidTimeZone(tzid)) return tzid;
  const parts = tzid.split('/');
  for (let start = 1; start < parts.length - 1; start += 1) {
    const candidate = parts.slice(start).join('/');
    if (candidate.includes('/') && isValidTimeZone(candidate)) return candidate;
  }
  return undefined;
}

const JCAL_TIME = /^(\d{4})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d):(\d\d)(Z)?)?$/;

function textValues(properties: readonly ICAL.Property[]): string[] {
  return properties.flatMap((property) => property.getValues().map((value: unknown) => String(value)));
}

/** The context and tags CalDAV categories stand for: the first `@` category is the context. */
function labelsOfCategories(categories: readonly string[]): { context: string | null; tags: string[] } {
  const contextAt = categories.findIndex((category) => category.startsWith(CONTEXT_MARK) && category.length > 1);
  const context = contextAt === -1 ? null : (categories[contextAt] ?? null);
  return { context, tags: [...new Set(categories.filter((_category, index) => index !== contextAt))] };
}

function sameDate(property: ICAL.Property, at: Micros | null, allDay: boolean, zone: string): boolean {
  const read = instantOf(property, zone);
  if (typeof read === 'string') return at === null;
  return read.at === at && read.isDate === allDay;
}

/**
 * Whether a client's own lines of a mapped property still say what the task says, so that they
 * are served instead of the server's (its TZID, its IN-PROCESS, its order of categories).
 */
function keptLinesAgree(
  name: string,
  kept: readonly ICAL.Property[],
  task: PortableTask,
  output: VtodoOutput,
): boolean {
  const first = kept[0];
  if (first === undefined) return false;
  const value: unknown = first.getFirstValue();
  const { zone } = output;
  switch (name) {
    case 'uid':
      return true;
    case 'summary':
      return String(value) === task.title;
    case 'description':
      return String(value) === task.notes;
    case 'dtstart':
      return sameDate(first, task.startAt, task.allDay, zone);
    case 'due':
      return sameDate(first, task.endAt, task.allDay, zone);
    case 'completed':
      return sameDate(first, task.completed, false, zone);
    case 'status': {
      const status = String(value).toUpperCase();
      return task.completed === null ? status !== 'COMPLETED' : status === 'COMPLETED';
    }
    case 'percent-complete':
      return (Number(value) === 100) === (task.completed !== null);
    case 'priority':
      return typeof value === 'number' && priorityOfIcal(value) === task.priority;
    case 'categories': {
      const labels = labelsOfCategories(textValues(kept));
      const context = labelName(task.context, output.names);
      const sameContext = labels.context === (context === undefined ? null : contextCategory(context));
      return sameContext && labels.tags.join('\n') === task.tags.join('\n');
    }
    case 'rrule': {
      const rule = value instanceof ICAL.Recur ? value.toString() : String(value);
      return task.repeater === null ? !isValidRepeater(rule) : rule === task.repeater;
    }
    default:
      return false;
  }
}

/** The task as a VTODO: its fields, then what it kept, the client's agreeing lines in place of ours. */
export function vtodoOf(task: PortableTask, output: VtodoOutput): ICAL.Component {
  const todo = new ICAL.Component('vtodo');
  const kept = task.icalExtras === '' ? undefined : keptComponent(task);
  const keptByName = new Map<string, ICAL.Property[]>();
  const others: ICAL.Property[] = [];
  for (const property of kept?.getAllProperties() ?? []) {
    if (property.name === OWN.resourceName) continue;
    if (FIELD_PROPERTIES.has(property.name))
      keptByName.set(property.name, [...(keptByName.get(property.name) ?? []), property]);
    else others.push(property);
  }
  const served = new Set<string>();
  for (const property of fieldProperties(task, output)) {
    const name = property.name;
    if (served.has(name)) continue;
    const keptLines = keptByName.get(name);
    if (keptLines !== undefined && keptLinesAgree(name, keptLines, task, output)) {
      for (const line of keptLines) todo.addProperty(line);
      served.add(name);
    } else {
      todo.addProperty(property);
    }
  }
  // A kept line of a property the fields do not write now (a PERCENT-COMPLETE, a STATUS:CANCELLED).
  for (const [name, keptLines] of keptByName) {
    if (served.has(name) || todo.hasProperty(name)) continue;
    if (keptLinesAgree(name, keptLines, task, output)) for (const line of keptLines) todo.addProperty(line);
  }
  for (const property of others) todo.addProperty(property);
  for (const component of kept?.getAllSubcomponents() ?? []) todo.addSubcomponent(component);
  return todo;
}

/** A VCALENDAR as text: RFC 5545 lines end in CRLF. */
export function calendarText(calendar: ICAL.Component): string {
  return `${calendar.toString().replace(/\r?\n/g, '\r\n')}\r\n`;
}

export function newCalendar(): ICAL.Component {
  const calendar = new ICAL.Component('vcalendar');
  calendar.addPropertyWithValue('version', '2.0');
  calendar.addPropertyWithValue('prodid', PRODID);
  return calendar;
}

function text(todo: ICAL.Component, name: string): string | undefined {
  const value: unknown = todo.getFirstPropertyValue(name);
  return typeof value === 'string' ? value : value === null ? undefined : String(value);
}

/** A task id from a UID: itself when it is a valid id, else a hash of it (the same every time). */
export function idOfUid(uid: string): string {
  if (TASK_LIMITS.idPattern.test(uid)) return uid;
  return `ics-${createHash('sha256').update(uid).digest('base64url').slice(0, 22)}`;
}

/** One VTODO read: the task, its UID as sent, and what could not be kept. */
export interface ReadTodo {
  readonly task: PortableTask;
  readonly uid: string;
  /** Whether the VTODO named the box (X-TASK-SERVICE-BOX in CalDAV): else /v1's default holds. */
  readonly namedBox: boolean;
  readonly unmapped: string[];
  /** What did not fit the bound of kept content (also among `unmapped`): CalDAV refuses such a VTODO. */
  readonly notKept: readonly string[];
  /** Dates that could not be read (also among `unmapped`): CalDAV refuses such a VTODO. */
  readonly badDates: readonly string[];
}

/** How a VTODO is read: the dialect, and in CalDAV the id the server chose and the resource name. */
export interface VtodoInput {
  readonly zone: string;
  readonly dialect: VtodoDialect;
  /** CalDAV: the id of the task (the UID when it is a valid id, else one the server made). */
  readonly id?: string;
  /** CalDAV: the resource name to keep, when it is not `<id>.ics`. */
  readonly resourceName?: string;
}

/** Whether a client's lines of a mapped property say more than the server would write for them. */
function differs(sent: readonly ICAL.Property[], written: readonly ICAL.Property[]): boolean {
  const lines = (properties: readonly ICAL.Property[]): string =>
    properties.map((property) => property.toICALString()).join('\r\n');
  return lines(sent) !== lines(written);
}

/**
 * What a VTODO keeps: in a file, the properties no field takes; in CalDAV also its
 * sub-components and the client's lines of mapped properties that differ from the server's.
 */
function keptOf(todo: ICAL.Component, task: PortableTask, input: VtodoInput, where: string) {
  let icalExtras = '';
  const notKept: string[] = [];
  const keep = (line: string, what: string): void => {
    const problem = contentLineProblem(line);
    const longer = problem === undefined ? withExtraLine(icalExtras, line) : undefined;
    if (longer === undefined) {
      const why = problem ?? `a task keeps at most ${TASK_LIMITS.icalExtrasMax} characters of them`;
      notKept.push(`${where}: ${what} not kept (${why})`);
    } else {
      icalExtras = longer;
    }
  };
  const own = OWN_PROPERTIES[input.dialect];
  const caldav = input.dialect === 'caldav';
  if (caldav && input.resourceName !== undefined) keep(`X-TASK-SERVICE-RESOURCE:${input.resourceName}`, 'the name');
  const written = caldav
    ? fieldProperties(task, { zone: input.zone, names: new Map(), dtstamp: 0, dialect: 'caldav' })
    : [];
  const seen = new Set<string>();
  for (const property of todo.getAllProperties()) {
    const name = property.name;
    if (STAMP_PROPERTIES.has(name) || own.has(name)) continue;
    if (FIELD_PROPERTIES.has(name)) {
      if (!caldav || seen.has(name)) continue;
      seen.add(name);
      const sent = todo.getAllProperties(name);
      if (
        !differs(
          sent,
          written.filter((candidate) => candidate.name === name),
        )
      )
        continue;
      for (const line of sent) keep(line.toICALString(), name.toUpperCase());
      continue;
    }
    keep(property.toICALString(), name.toUpperCase());
  }
  const inner = todo.getAllSubcomponents();
  if (caldav) {
    // A component is kept whole or not at all, its lines unfolded as every kept line is.
    for (const component of inner) {
      const lines = component.toString().replace(/\r?\n[ \t]/g, '');
      const longer = `${icalExtras}${lines.replace(/\r?\n/g, '\r\n')}\r\n`;
      const problem = icalExtrasProblem(longer);
      if (problem === undefined) icalExtras = longer;
      else notKept.push(`${where}: ${component.name.toUpperCase()} not kept (${problem})`);
    }
  } else if (inner.length > 0) {
    const names = inner.map((component) => component.name.toUpperCase());
    notKept.push(`${where}: ${names.join(', ')} left out (components inside a VTODO are not kept)`);
  }
  return { icalExtras, notKept };
}

/** One VTODO as a task, with what could not be mapped. */
export function readTodo(todo: ICAL.Component, input: VtodoInput, index: number): ReadTodo {
  const { zone, dialect } = input;
  const uid = text(todo, 'uid') ?? `vtodo-${index}`;
  const where = `VTODO ${uid}`;
  const unmapped: string[] = [];
  const badDates: string[] = [];
  const dateOf = (name: string): { at: Micros; isDate: boolean } | null => {
    const property = todo.getFirstProperty(name);
    if (property === null) return null;
    const found = instantOf(property, zone);
    if (typeof found === 'string') {
      unmapped.push(`${where}: ${found}`);
      badDates.push(found);
      return null;
    }
    return found;
  };
  const start = dateOf('dtstart');
  const due = dateOf('due');
  const completedAt = dateOf('completed');
  const trashed = dialect === 'file' ? dateOf(OWN.trashed) : null;
  const status = text(todo, 'status')?.toUpperCase();
  const percent: unknown = todo.getFirstPropertyValue('percent-complete');
  const done = status === 'COMPLETED' || (status === undefined && (completedAt !== null || Number(percent) === 100));
  const completed = done
    ? (completedAt?.at ?? (dateOf('last-modified') ?? dateOf('dtstamp'))?.at ?? null)
    : dialect === 'file'
      ? (completedAt?.at ?? null)
      : null;
  if (status === 'COMPLETED' && completed === null) unmapped.push(`${where}: STATUS:COMPLETED without a date (open)`);
  if (status === 'CANCELLED') unmapped.push(`${where}: STATUS:CANCELLED (an open task)`);

  let repeater: string | null = null;
  const rule: unknown = todo.getFirstPropertyValue('rrule');
  if (rule instanceof ICAL.Recur) {
    const ruleText = rule.toString();
    if (isValidRepeater(ruleText) && (start !== null || due !== null)) repeater = ruleText;
    else unmapped.push(`${where}: RRULE ${ruleText} (not a rule this service repeats by, or no date to repeat from)`);
  }
  const categories = textValues(todo.getAllProperties('categories'));
  const labels =
    dialect === 'caldav'
      ? labelsOfCategories(categories)
      : { context: text(todo, OWN.context) ?? null, tags: [...new Set(categories)] };
  const boxText = text(todo, BOX_PROPERTY[dialect]);
  const box = ATTRIBUTES.find((candidate) => candidate === boxText);
  const attribute: Attribute = box ?? (start === null ? 'inbox' : 'plan');
  const priorityValue: unknown = todo.getFirstPropertyValue('priority');
  const project = dialect === 'file' ? text(todo, OWN.project) : undefined;
  const title = text(todo, 'summary') ?? '';
  if (title === '') unmapped.push(`${where}: no SUMMARY (imported as "(untitled)")`);
  const task: PortableTask = {
    ...NEW_PORTABLE_TASK,
    id: input.id ?? idOfUid(uid),
    title: title === '' ? '(untitled)' : title,
    notes: text(todo, 'description') ?? '',
    attribute: attribute === 'plan' && start === null ? 'next' : attribute,
    allDay: (start ?? due)?.isDate ?? false,
    startAt: start?.at ?? null,
    endAt: due?.at ?? null,
    completed,
    trashed: trashed?.at ?? null,
    project: project === undefined ? null : { name: project },
    context: labels.context === null ? null : { name: labels.context },
    tags: labels.tags,
    priority: typeof priorityValue === 'number' ? priorityOfIcal(priorityValue) : 0,
    repeater,
    icalExtras: '',
  };
  const kept = keptOf(todo, task, input, where);
  return {
    task: { ...task, icalExtras: kept.icalExtras },
    uid,
    namedBox: box !== undefined,
    unmapped: [...kept.notKept, ...unmapped],
    notKept: kept.notKept,
    badDates,
  };
}
