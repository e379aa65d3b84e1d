import { createHash } from 'node:crypto';
import { NEW_PORTABLE_TASK, type PortableAccount, type PortableTask } from '../../domain/portable.js';
import type { Priority } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { instantOfWallClock, isValidTimeZone } from '../../domain/zone.js';
import { FormatError } from './account-json.js';
import { readCsv } from './csv.js';
import { oneOffDay, splitTime, type Day, type TimeOfDay } from './todoist-dates.js';
import { recurrenceOf } from './todoist-recurrence.js';
import { readZip } from './zip.js';

/**
 * Todoist's backup: a zip of one CSV per project (`Project name [id].csv`), or one project's CSV
 * export alone; columns read by name: TYPE (task, note, section, meta), CONTENT, DESCRIPTION,
 * PRIORITY (1 highest … 4 none), INDENT, DATE, DATE_LANG, TIMEZONE. A task's first `@label` is
 * its context (`@label`, as quick add writes one), the others its tags; a note row is added to
 * the notes of the task above it. A dated task is Scheduled, an undated one in the Inbox (its
 * project kept). Dates in words ("tomorrow", "every monday at 9am") are read against the day the
 * file was made (the zip records it; a lone CSV: the day of the import), so that importing the
 * same backup again gives the same dates. Whatever has no place here (sections, subtask nesting,
 * date phrases not understood) is listed, not dropped silently.
 */

/** One project's CSV: its file name (the project's), its text, and the day it was made. */
export interface TodoistFile {
  readonly name: string;
  readonly text: string;
  readonly made: Day;
}

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

/**
 * The title without its `@labels`; the first label as the context (GTD's contexts are written
 * `@errands`), the others as tags.
 */
function titleAndLabels(content: string): { title: string; context: string | null; tags: string[] } {
  const labels = [...content.matchAll(/(?:^|\s)@([^\s@]+)/g)].map((match) => match[1] ?? '').filter((l) => l !== '');
  const title = content.replace(/(?:^|\s)@[^\s@]+/g, '').trim();
  const [context, ...tags] = [...new Set(labels)];
  return { title: title === '' ? content.trim() : title, context: context === undefined ? null : `@${context}`, tags };
}

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

function at(day: Day, time: TimeOfDay | undefined, zone: string): Micros {
  return instantOfWallClock({ ...day, hour: time?.hour ?? 0, minute: time?.minute ?? 0, second: 0 }, zone);
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
  const rowZone = row.get('TIMEZONE') ?? '';
  const timeZone = isValidTimeZone(rowZone) ? rowZone : zone;
  const iso = ISO_DATE.exec(text);
  if (iso !== null) {
    const day = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    if (iso[4] === undefined) return { startAt: at(day, undefined, zone), allDay: true, repeater: null };
    const time = { hour: Number(iso[4]), minute: Number(iso[5]) };
    return { startAt: at(day, time, timeZone), allDay: false, repeater: null };
  }
  const phrase = splitTime(text);
  // A time alone ("at 18:30") is today's.
  const words = phrase === undefined ? undefined : phrase.rest === '' ? 'today' : phrase.rest;
  const time = phrase?.time;
  const recurrence = words === undefined ? undefined : recurrenceOf(words);
  if (recurrence !== undefined) {
    return {
      startAt: at(firstDayOn(made, recurrence.days), time, time === undefined ? zone : timeZone),
      allDay: time === undefined,
      repeater: recurrence.rule,
      ...(recurrence.caveat === undefined ? {} : { note: recurrence.caveat }),
    };
  }
  const day = words === undefined ? undefined : oneOffDay(words, made);
  if (day !== undefined) {
    return { startAt: at(day, time, time === undefined ? zone : timeZone), allDay: time === undefined, repeater: null };
  }
  const language = (row.get('DATE_LANG') ?? 'en').trim() || 'en';
  const why = language === 'en' ? 'not a date or recurring phrase this import understands' : `in language ${language}`;
  return { startAt: null, allDay: false, repeater: null, note: `date "${text}" (${why}): imported without a date` };
}

function readProject(file: TodoistFile, zone: string, tasks: PortableTask[], unmapped: string[]): void {
  const projectName = projectNameOf(file.name);
  const inInbox = projectName.toLowerCase() === 'inbox' || projectName === '';
  const where = projectName === '' ? 'Inbox' : projectName;
  let nested = 0;
  let last: PortableTask | undefined;
  for (const [index, row] of readCsv(file.text).entries()) {
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
    const { title, context, tags } = titleAndLabels(content);
    const date = readDate(row, file.made, zone);
    if (date.note !== undefined) unmapped.push(`${where}: "${title}": ${date.note}`);
    last = {
      ...NEW_PORTABLE_TASK,
      id: idOf(file.name, index, content),
      title,
      notes: row.get('DESCRIPTION') ?? '',
      // Undated tasks wait in the Inbox to be sorted, as anything new does.
      attribute: date.startAt !== null ? 'plan' : 'inbox',
      allDay: date.allDay,
      startAt: date.startAt,
      endAt: null,
      completed: null,
      trashed: null,
      project: inInbox ? null : { name: projectName },
      context: context === null ? null : { name: context },
      tags,
      priority: PRIORITIES[(row.get('PRIORITY') ?? '').trim()] ?? 0,
      repeater: date.repeater,
      icalExtras: '',
    };
    tasks.push(last);
  }
  if (nested > 0) unmapped.push(`${where}: ${nested} subtasks imported as tasks of their own (no nesting here)`);
}

/** The tasks of Todoist's project CSV files; dates are read in `zone` unless a row names its own. */
export function readTodoistFiles(files: readonly TodoistFile[], zone: string): PortableAccount {
  const tasks: PortableTask[] = [];
  const unmapped: string[] = [];
  for (const file of files) readProject(file, zone, tasks, unmapped);
  return { projects: [], contexts: [], tasks, unmapped };
}

/** The tasks of a Todoist backup zip; dates are read in `zone` unless a row names its own. */
export async function readTodoistBackup(zip: Buffer, zone: string): Promise<PortableAccount> {
  const files = (await readZip(zip)).filter((entry) => entry.name.toLowerCase().endsWith('.csv'));
  if (files.length === 0) throw new FormatError('the zip holds no CSV file: not a Todoist backup');
  return readTodoistFiles(
    files.map((entry) => ({ name: entry.name, text: entry.data.toString('utf8'), made: entry.modified })),
    zone,
  );
}

/**
 * One project's CSV as Todoist's project export gives it (`Project name.csv`), made on `made`
 * (the day of the import: the file records none). Refused when it has not Todoist's columns.
 */
export function readTodoistCsv(file: TodoistFile, zone: string): PortableAccount {
  const header = (file.text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '')
    .split(',')
    .map((column) => column.trim());
  if (!header.includes('TYPE') || !header.includes('CONTENT'))
    throw new FormatError("not a Todoist backup (a zip) nor a Todoist project's CSV (its TYPE and CONTENT columns)");
  return readTodoistFiles([file], zone);
}
