/**
 * The shapes of every answer of the service, as zod schemas: the one description of what
 * render.ts and errors.ts write. The OpenAPI document is generated from them, the tests read
 * answers with them (strictly: a missing or extra field fails), and the SDK takes its types
 * from them (type-only, so it loads nothing of the server).
 */
import { z } from 'zod';
import { ATTRIBUTES } from '../../domain/task.js';
import { RETCODES } from './errors.js';

/** `%Y-%m-%d %H:%M:%S %z`, the only date-time form the service writes. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

/** A date-time as written. */
export const wireDateTime = z
  .string()
  .regex(DATE_TIME)
  .meta({
    description: "A date-time in the account's zone: `YYYY-MM-DD HH:MM:SS +hhmm`.",
    examples: ['2026-11-21 09:30:00 +0800'],
  });

/** Every string below arrives HTML-escaped (`&`, `<`, `>`, `'`, `"` as entities), and only those five. */
export const escaped = z.string();

export const wireTask = z
  .strictObject({
    id: escaped,
    title: escaped,
    notes: escaped,
    attribute: z.enum(ATTRIBUTES),
    all_day: z.boolean(),
    start_at: wireDateTime.nullable(),
    end_at: wireDateTime.nullable(),
    completed: wireDateTime.nullable(),
    trashed: wireDateTime.nullable(),
    deleted: wireDateTime.nullable(),
    project: escaped.nullable(),
    project_id: escaped.nullable(),
    context: escaped.nullable(),
    context_id: escaped.nullable(),
    tags: z.array(escaped),
    priority: z.int().min(0).max(3),
    repeater: escaped.nullable(),
    created: wireDateTime,
    updated: wireDateTime,
    rev: z.int().positive(),
  })
  .meta({ description: 'A task as the service writes it; every string HTML-escaped.' });
export type WireTask = z.infer<typeof wireTask>;

export const wireProject = z
  .strictObject({
    id: escaped,
    name: escaped,
    notes: escaped,
    archived: wireDateTime.nullable(),
    deleted: wireDateTime.nullable(),
    created: wireDateTime,
    updated: wireDateTime,
    rev: z.int().positive(),
  })
  .meta({ description: 'A project; every string HTML-escaped.' });
export type WireProject = z.infer<typeof wireProject>;

export const wireContext = z
  .strictObject({
    id: escaped,
    name: escaped,
    deleted: wireDateTime.nullable(),
    created: wireDateTime,
    updated: wireDateTime,
    rev: z.int().positive(),
  })
  .meta({ description: 'A context; every string HTML-escaped.' });
export type WireContext = z.infer<typeof wireContext>;

export const wireSettings = z
  .strictObject({
    id: escaped,
    username: escaped,
    account: escaped,
    nickname: escaped,
    timezone: escaped,
    user_timezone: escaped,
    language: escaped,
    week_start: z.int().min(0).max(6),
    created: wireDateTime,
    updated: wireDateTime,
  })
  .meta({ description: "The settings of the token's account." });
export type WireSettings = z.infer<typeof wireSettings>;

export const wireError = z
  .strictObject({ retcode: z.enum(RETCODES), retmsg: escaped, reqdata: escaped })
  .meta({ description: 'The body of every error: the retcode, its message, and the request data as received.' });
export type WireErrorBody = z.infer<typeof wireError>;

export const wireHealth = z.strictObject({ status: z.literal('ok') }).meta({ description: 'The store answers.' });

/** A list answer: one page of a listing or sync, in ascending `rev`. */
function listOf<T extends z.ZodType>(entry: T) {
  return z.strictObject({ entries: z.array(entry), cursor: z.string().min(1), has_more: z.boolean() });
}

/** The answer to an array POST: the stored records in input order. */
export function entriesOf<T extends z.ZodType>(entry: T) {
  return z.strictObject({ entries: z.array(entry) });
}

export const taskList = listOf(wireTask);
export type TaskList = z.infer<typeof taskList>;
export const projectList = listOf(wireProject);
export type ProjectList = z.infer<typeof projectList>;
export const contextList = listOf(wireContext);
export type ContextList = z.infer<typeof contextList>;
