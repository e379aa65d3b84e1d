import type { TaskDraft } from '../../src/domain/task.js';
import type { Micros } from '../../src/domain/time.js';

/*
 * Tasks as iCalendar VTODOs (RFC 5545), for the CalDAV peer: the same generated tasks the task
 * service holds, so both servers store and send comparable data.
 */

const CRLF = '\r\n';

/** TEXT value escaping: backslash, semicolon, comma and newlines. */
function text(value: string): string {
  return value.replace(/[\\;,]/g, (char) => `\\${char}`).replace(/\r?\n/g, '\\n');
}

/** A UTC DATE-TIME value: 20260101T090000Z. */
function utc(us: Micros): string {
  return new Date(Math.floor(us / 1000))
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** Folds a content line at 75 octets (continuation lines start with a space), never inside a character. */
function fold(line: string): string {
  const bytes = Buffer.from(line, 'utf8');
  if (bytes.length <= 75) return line + CRLF;
  let out = '';
  let start = 0;
  let limit = 75;
  while (start < bytes.length) {
    let end = Math.min(start + limit, bytes.length);
    // Back off to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
    while (end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
    out += (start === 0 ? '' : ' ') + bytes.subarray(start, end).toString('utf8') + CRLF;
    start = end;
    limit = 74;
  }
  return out;
}

/** iCalendar PRIORITY: 1 highest, 9 lowest, 0 undefined. */
const PRIORITY = [0, 9, 5, 1] as const;

/** The VTODO component of a task (no VCALENDAR around it); `uid` overrides the task id. */
export function vtodo(task: TaskDraft, uid = task.id): string {
  const lines = ['BEGIN:VTODO', `UID:${uid}`, 'DTSTAMP:20260101T000000Z', `SUMMARY:${text(task.title)}`];
  if (task.notes !== '') lines.push(`DESCRIPTION:${text(task.notes)}`);
  if (task.startAt !== null) lines.push(`DTSTART:${utc(task.startAt)}`);
  if (task.endAt !== null) lines.push(`DUE:${utc(task.endAt)}`);
  if (task.completed !== null) lines.push('STATUS:COMPLETED', `COMPLETED:${utc(task.completed)}`);
  else lines.push('STATUS:NEEDS-ACTION');
  if (task.priority !== 0) lines.push(`PRIORITY:${PRIORITY[task.priority]}`);
  if (task.tags.length > 0) lines.push(`CATEGORIES:${task.tags.map(text).join(',')}`);
  if (task.repeater !== null) lines.push(`RRULE:${task.repeater}`);
  lines.push('END:VTODO');
  return lines.map(fold).join('');
}

/** A whole iCalendar object holding the given components. */
export function vcalendar(components: readonly string[]): string {
  return `BEGIN:VCALENDAR${CRLF}VERSION:2.0${CRLF}PRODID:-//task-service bench//EN${CRLF}${components.join('')}END:VCALENDAR${CRLF}`;
}
