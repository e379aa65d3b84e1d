import ICAL from 'ical.js';
import { nextOccurrence } from '../domain/repeat.js';
import type { Task } from '../domain/task.js';
import type { Micros } from '../domain/time.js';
import type { CompFilter, PropFilter, TextMatch, TimeRange } from './requests.js';

/**
 * The filter of a calendar-query (RFC 4791 9.7), applied to a task's VCALENDAR as it is served.
 * A VTODO's time-range follows RFC 4791 9.9 on the task's own dates, and looks at every
 * occurrence of a repeating task, found by the same rule the server repeats by.
 */

/** Occurrences looked at per task at most: a rule that never reaches the range ends there. */
export const MAX_OCCURRENCES = 5000;

function inRange(range: TimeRange, test: (start: number, end: number) => boolean): boolean {
  return test(range.start ?? Number.NEGATIVE_INFINITY, range.end ?? Number.POSITIVE_INFINITY);
}

interface TodoDates {
  readonly start: Micros | null;
  readonly due: Micros | null;
  readonly completed: Micros | null;
  readonly created: Micros | null;
}

/** RFC 4791 9.9: whether one occurrence of a VTODO overlaps the range (no DURATION: we write none). */
function todoOverlaps(range: TimeRange, dates: TodoDates): boolean {
  const { start: dtstart, due, completed, created } = dates;
  return inRange(range, (start, end) => {
    if (dtstart !== null && due !== null) return (start < due || start <= dtstart) && (end > dtstart || end >= due);
    if (dtstart !== null) return start <= dtstart && end > dtstart;
    if (due !== null) return start < due && end >= due;
    if (completed !== null && created !== null)
      return (start <= created || start <= completed) && (end >= created || end >= completed);
    if (completed !== null) return start <= completed && end >= completed;
    if (created !== null) return end > created;
    return true;
  });
}

/** Each occurrence of the task (the task itself first), in order, at most MAX_OCCURRENCES. */
export function* occurrences(task: Task, zone: string): Generator<{ startAt: Micros | null; endAt: Micros | null }> {
  let current: { startAt: Micros | null; endAt: Micros | null; repeater: string | null } = task;
  for (let count = 0; count < MAX_OCCURRENCES; count += 1) {
    yield { startAt: current.startAt, endAt: current.endAt };
    if (current.repeater === null) return;
    const next = nextOccurrence({ ...current, allDay: task.allDay, repeater: current.repeater }, zone);
    if (next === null) return;
    current = next;
  }
}

/** Whether any occurrence of the task overlaps the range. */
export function taskOverlaps(task: Task, range: TimeRange, zone: string): boolean {
  for (const occurrence of occurrences(task, zone)) {
    const dates = {
      start: occurrence.startAt,
      due: occurrence.endAt,
      completed: task.completed,
      created: task.created,
    };
    if (todoOverlaps(range, dates)) return true;
    const anchor = occurrence.startAt ?? occurrence.endAt;
    // Occurrences only move later: once one starts after the range, none later overlaps.
    if (anchor === null || (range.end !== undefined && anchor >= range.end)) return false;
  }
  return false;
}

const ASCII_UPPER = /[A-Z]/g;

function folded(text: string, match: TextMatch): string {
  switch (match.collation) {
    case 'i;octet':
      return text;
    case 'i;ascii-casemap':
      return text.replace(ASCII_UPPER, (letter) => letter.toLowerCase());
    case 'i;unicode-casemap':
      return text.normalize('NFKD').toUpperCase().toLowerCase();
  }
}

function textMatches(values: readonly string[], match: TextMatch): boolean {
  const wanted = folded(match.text, match);
  const found = values.some((value) => folded(value, match).includes(wanted));
  return match.negate ? !found : found;
}

function valuesOf(property: ICAL.Property): string[] {
  return property.getValues().map((value: unknown) => String(value));
}

/** The instant of a date or date-time value (UTC, or a zone ical.js knows; else as UTC). */
function micros(value: unknown): number | undefined {
  return value instanceof ICAL.Time ? value.toUnixTime() * 1_000_000 : undefined;
}

function propertyMatches(filter: PropFilter, component: ICAL.Component): boolean {
  const properties = component.getAllProperties(filter.name.toLowerCase());
  if (filter.isNotDefined) return properties.length === 0;
  if (properties.length === 0) return false;
  return properties.some((property) => {
    const tests: boolean[] = [];
    if (filter.timeRange !== undefined) {
      const at = micros(property.getFirstValue());
      const range = filter.timeRange;
      tests.push(at !== undefined && inRange(range, (start, end) => start <= at && at < end));
    }
    if (filter.textMatch !== undefined) tests.push(textMatches(valuesOf(property), filter.textMatch));
    for (const param of filter.paramFilters) {
      const value: unknown = property.getParameter(param.name.toLowerCase());
      if (param.isNotDefined) tests.push(value === undefined);
      else if (value === undefined) tests.push(false);
      else
        tests.push(
          param.textMatch === undefined ||
            textMatches(Array.isArray(value) ? value.map(String) : [String(value)], param.textMatch),
        );
    }
    return filter.allOf ? tests.every(Boolean) : tests.length === 0 || tests.some(Boolean);
  });
}

function conditionsHold(filter: CompFilter, component: ICAL.Component, task: Task, zone: string): boolean {
  const tests: (() => boolean)[] = [];
  const range = filter.timeRange;
  // A time-range on the VTODO uses the task's occurrences; on another component it asks only that it exists.
  if (range !== undefined && component.name === 'vtodo') tests.push(() => taskOverlaps(task, range, zone));
  for (const prop of filter.propFilters) tests.push(() => propertyMatches(prop, component));
  for (const comp of filter.compFilters) tests.push(() => componentMatches(comp, component, task, zone));
  return filter.allOf ? tests.every((test) => test()) : tests.length === 0 || tests.some((test) => test());
}

function componentMatches(filter: CompFilter, parent: ICAL.Component, task: Task, zone: string): boolean {
  const components = parent.getAllSubcomponents(filter.name.toLowerCase());
  if (filter.isNotDefined) return components.length === 0;
  return components.some((component) => conditionsHold(filter, component, task, zone));
}

/** Whether a task, served as `calendar`, passes the query's filter (whose top is VCALENDAR). */
export function passesFilter(filter: CompFilter, calendar: ICAL.Component, task: Task, zone: string): boolean {
  if (filter.name !== 'VCALENDAR') return false;
  if (filter.isNotDefined) return false;
  return conditionsHold(filter, calendar, task, zone);
}

/** Whether the filter asks for nothing but VTODOs: then every task passes without being read. */
export function passesEveryTask(filter: CompFilter): boolean {
  if (filter.name !== 'VCALENDAR' || filter.isNotDefined || filter.timeRange !== undefined) return false;
  if (filter.propFilters.length > 0 || filter.compFilters.length !== 1) return false;
  const [todo] = filter.compFilters;
  return (
    todo !== undefined &&
    todo.name === 'VTODO' &&
    !todo.isNotDefined &&
    todo.timeRange === undefined &&
    todo.propFilters.length === 0 &&
    todo.compFilters.length === 0
  );
}
