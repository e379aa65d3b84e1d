import { createHash } from 'node:crypto';
import type { PortableAccount, PortableTask } from '../../domain/portable.js';
import type { Priority } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { instantOfWallClock, isValidTimeZone } from '../../domain/zone.js';
import { FormatError } from './account-json.js';
import { readCsv } from './csv.js';
import { recurrenceOf } from './todoist-recurrence.js';
import { readZip, type ZipEntry } from './zip.js';

/**
 * Todoist's backup: a zip of one CSV per project (`Project name [id].csv`), columns read by name:
 * TYPE (task, note, section, meta), CONTENT, DESCRIPTION, PRIORITY (1 highest … 4 none), INDENT,
 * DATE, DATE_LANG, TIMEZONE. A task's `@labels` in its content become tags; a note row is added
 * to the notes of the task above it. Recurring dates become RRULEs (todoist-recurrence.ts),
 * anchored on the first matching day on or after the day the backup was made (the zip records
 * it), so that importing the same backup again gives the same dates. Whatever has no place here
 * (sections, subtask nesting, one-off dates in words) is listed, not dropped silently.
 */

const PRIORITIES: Readonly<Record<string, Priority>> = { '1': 3, '2': 2, '3': 1, '4': 0 };
const WEEKDAY_CODES = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
const ISO_DATE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d))?$/;

function projectNameOf(fileName: string): string {
  const base = fileName.split('/').pop() ?? fileName;
  return base
    .replace(/\.csv$/i, '')
    .replace(/ \[\d+\]$/, '')
    .trim();
}

function idOf(fileName: string, row: number, content: string): string {
  return `todoist-${createHash('sha256').update(`${fileName}\n${row}\n${content}`).digest('base64url').slice(0, 22)}`;
}

/** The title without its `@labels`, and the labels as tags. */
function titleAndTags(content: string): { title: string; tags: string[] } {
  const tags = [...content.matchAll(/(?:^|\s)@([^\s@]+)/g)].map((match) => match[1] ?? '');
  const title = content.replace(/(?:^|\s)@[^\s@]+/g, '').trim();
  return { title: title === '' ? content.trim() : title, tags: [...new Set(tags.filter((tag) => tag !== ''))] };
}

type Day = { readonly year: number; readonly month: number; readonly day: number };

/** The first day on or after `from` that falls on one of `days` (any day when none is given). */
function firstDayOn(from: Day, days: readonly string[]): Day {
  for (let offset = 0; offset < 7; offset += 1) {
    const date = new Date(Date.UTC(from.year, from.month - 1, from.day + offset));
    if (days.length === 0 || days.includes(WEEKDAY_CODES[date.getUTCDay()] ?? '')) {
      return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
    }
  }
  return from;
}

function midnight(day: Day, zone: string): Micros {
  return instantOfWallClock({ ...day, hour: 0, minute: 0, second: 0 }, zone);
}

interface DateReading {
  readonly startAt: Micros | null;
  readonly allDay: boolean;
  readonly repeater: string | null;
  readonly note?: string;
}

function readDate(row: ReadonlyMap<string, string>, made: Day, zone: string): DateReading {
  const text = (row.get('DATE') ?? '').trim();
  if (text === '') return { startAt: null, allDay: false, repeater: null };
  const recurrence = recurrenceOf(text);
  if (recurrence !== undefined) {
    return {
      startAt: midnight(firstDayOn(made, recurrence.days), zone),
      allDay: true,
      repeater: recurrence.rule,
      ...(recurrence.caveat === undefined ? {} : { note: recurrence.caveat }),
    };
  }
  const iso = ISO_DATE.exec(text);
  if (iso !== null) {
    const day = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    if (iso[4] === undefined) return { startAt: midnight(day, zone), allDay: true, repeater: null };
    const rowZone = row.get('TIMEZONE') ?? '';
    const timeZone = isValidTimeZone(rowZone) ? rowZone : zone;
    const at = instantOfWallClock({ ...day, hour: Number(iso[4]), minute: Number(iso[5]), second: 0 }, timeZone);
    return { startAt: at, allDay: false, repeater: null };
  }
  const language = (row.get('DATE_LANG') ?? 'en').trim() || 'en';
  const why = language === 'en' ? 'not a date or recurring phrase this import understands' : `in language ${language}`;
  return { startAt: null, allDay: false, repeater: null, note: `date "${text}" (${why}): imported without a date` };
}

function readProject(entry: ZipEntry, zone: string, tasks: PortableTask[], unmapped: string[]): void {
  const projectName = projectNameOf(entry.name);
  const inInbox = projectName.toLowerCase() === 'inbox';
  const where = projectName;
  let nested = 0;
  let last: PortableTask | undefined;
  for (const [index, row] of readCsv(entry.data.toString('utf8')).entries()) {
    const type = (row.get('TYPE') ?? '').trim().toLowerCase();
    const content = row.get('CONTENT') ?? '';
    if (type === 'note') {
      if (last === undefined) {
        unmapped.push(`${where}: a comment on the project ("${content.slice(0, 40)}")`);
        continue;
      }
      last = { ...last, notes: last.notes === '' ? content : `${last.notes}\n\n${content}` };
      tasks[tasks.length - 1] = last;
      continue;
    }
    if (type !== 'task') {
      if (type === 'section') unmapped.push(`${where}: section "${content}" (its tasks imported without it)`);
      else if (type !== '' && type !== 'meta') unmapped.push(`${where}: a row of type ${type}`);
      continue;
    }
    if (Number(row.get('INDENT') ?? '1') > 1) nested += 1;
    const { title, tags } = titleAndTags(content);
    const date = readDate(row, entry.modified, zone);
    if (date.note !== undefined) unmapped.push(`${where}: "${title}": ${date.note}`);
    last = {
      id: idOf(entry.name, index, content),
      title,
      notes: row.get('DESCRIPTION') ?? '',
      attribute: date.startAt !== null ? 'plan' : inInbox ? 'inbox' : 'next',
      allDay: date.allDay,
      startAt: date.startAt,
      endAt: null,
      completed: null,
      trashed: null,
      project: inInbox ? null : { name: projectName },
      context: null,
      tags,
      priority: PRIORITIES[(row.get('PRIORITY') ?? '').trim()] ?? 0,
      repeater: date.repeater,
      icalExtras: '',
    };
    tasks.push(last);
  }
  if (nested > 0) unmapped.push(`${where}: ${nested} subtasks imported as tasks of their own (no nesting here)`);
}

/** The tasks of a Todoist backup zip; dates are read in `zone` unless a row names its own. */
export function readTodoistBackup(zip: Buffer, zone: string): PortableAccount {
  const files = readZip(zip).filter((entry) => entry.name.toLowerCase().endsWith('.csv'));
  if (files.length === 0) throw new FormatError('the zip holds no CSV file: not a Todoist backup');
  const tasks: PortableTask[] = [];
  const unmapped: string[] = [];
  for (const entry of files) readProject(entry, zone, tasks, unmapped);
  return { projects: [], contexts: [], tasks, unmapped };
}
