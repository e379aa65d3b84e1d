/**
 * Records as the JSON text clients read. Each renderer returns text rather than an object, so a
 * list is the concatenation of its entries and no intermediate object is built per record.
 * Every string is HTML-escaped (jsonString) and every date-time is in the account's zone.
 */
import type { Account } from '../../domain/account.js';
import type { Context, Project } from '../../domain/label.js';
import type { Label, Task } from '../../domain/task.js';
import type { Micros } from '../../domain/time.js';
import { formatDateTime, timezoneLabel } from './dates.js';
import { jsonString } from './json.js';

/** A date-time as a JSON string; formatDateTime writes only digits, `-`, `:`, ` ` and `+`, which need no escaping. */
function dateTime(us: Micros, zone: string): string {
  return `"${formatDateTime(us, zone)}"`;
}

function dateTimeOrNull(us: Micros | null, zone: string): string {
  return us === null ? 'null' : dateTime(us, zone);
}

function stringOrNull(text: string | null): string {
  return text === null ? 'null' : jsonString(text);
}

function labelName(label: Label | null): string {
  return label === null ? 'null' : jsonString(label.name);
}

function labelId(label: Label | null): string {
  return label === null ? 'null' : jsonString(label.id);
}

function stringArray(texts: readonly string[]): string {
  let json = '[';
  let separator = '';
  for (const text of texts) {
    json += separator + jsonString(text);
    separator = ',';
  }
  return `${json}]`;
}

export function renderTask(task: Task, zone: string): string {
  return (
    `{"id":${jsonString(task.id)}` +
    `,"title":${jsonString(task.title)}` +
    `,"notes":${jsonString(task.notes)}` +
    // One of a fixed set of plain words: nothing to escape.
    `,"attribute":"${task.attribute}"` +
    `,"all_day":${task.allDay ? 'true' : 'false'}` +
    `,"start_at":${dateTimeOrNull(task.startAt, zone)}` +
    `,"end_at":${dateTimeOrNull(task.endAt, zone)}` +
    `,"completed":${dateTimeOrNull(task.completed, zone)}` +
    `,"trashed":${dateTimeOrNull(task.trashed, zone)}` +
    `,"deleted":${dateTimeOrNull(task.deleted, zone)}` +
    `,"project":${labelName(task.project)}` +
    `,"project_id":${labelId(task.project)}` +
    `,"context":${labelName(task.context)}` +
    `,"context_id":${labelId(task.context)}` +
    `,"tags":${stringArray(task.tags)}` +
    `,"priority":${task.priority}` +
    `,"repeater":${stringOrNull(task.repeater)}` +
    `,"created":${dateTime(task.created, zone)}` +
    `,"updated":${dateTime(task.updated, zone)}` +
    `,"rev":${task.rev}}`
  );
}

export function renderProject(project: Project, zone: string): string {
  return (
    `{"id":${jsonString(project.id)}` +
    `,"name":${jsonString(project.name)}` +
    `,"notes":${jsonString(project.notes)}` +
    `,"archived":${dateTimeOrNull(project.archived, zone)}` +
    `,"color":${stringOrNull(project.color)}` +
    `,"deleted":${dateTimeOrNull(project.deleted, zone)}` +
    `,"created":${dateTime(project.created, zone)}` +
    `,"updated":${dateTime(project.updated, zone)}` +
    `,"rev":${project.rev}}`
  );
}

export function renderContext(context: Context, zone: string): string {
  return (
    `{"id":${jsonString(context.id)}` +
    `,"name":${jsonString(context.name)}` +
    `,"deleted":${dateTimeOrNull(context.deleted, zone)}` +
    `,"created":${dateTime(context.created, zone)}` +
    `,"updated":${dateTime(context.updated, zone)}` +
    `,"rev":${context.rev}}`
  );
}

/** The settings of an account; `user_timezone` shows the zone's offset at `nowUs`. */
export function renderSettings(account: Account, nowUs: Micros): string {
  const zone = account.timezone;
  return (
    `{"id":${jsonString(String(account.id))}` +
    `,"username":${jsonString(account.username)}` +
    `,"account":${jsonString(account.username)}` +
    `,"nickname":${jsonString(account.nickname)}` +
    `,"timezone":${jsonString(zone)}` +
    `,"user_timezone":${jsonString(timezoneLabel(zone, nowUs))}` +
    `,"language":${jsonString(account.language)}` +
    `,"week_start":${account.weekStart}` +
    `,"created":${dateTime(account.created, zone)}` +
    `,"updated":${dateTime(account.updated, zone)}}`
  );
}
