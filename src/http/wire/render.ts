/**
 * Records as the JSON text clients read. Each renderer returns text rather than an object, so a
 * list is the concatenation of its entries and no intermediate object is built per record.
 * Every string is HTML-escaped (jsonString) and every date-time is in the account's zone.
 */
import type { Account } from '../../domain/account.js';
import type { Context, Project } from '../../domain/label.js';
import type { Micros } from '../../domain/time.js';
import { timezoneLabel } from './dates.js';
import { dateTime, dateTimeOrNull, stringOrNull } from './task-fields.js';
import { jsonString } from './json.js';

/** A task, field by field as http/wire/task-fields.ts describes them. */
export { renderTask } from './task-fields.js';

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
