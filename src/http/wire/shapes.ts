/**
 * The shapes of every answer of the service, as zod schemas: the one description of what
 * render.ts and errors.ts write. The OpenAPI document is generated from them, the tests read
 * answers with them (strictly: a missing or extra field fails), and the SDK takes its types
 * from them (type-only, so it loads nothing of the server).
 */
import { z } from 'zod';
import { escaped, TASK_OUT_SHAPE, wireDateTime } from './task-fields.js';
import { RETCODES } from './errors.js';

export { DATE_TIME, wireDateTime } from './task-fields.js';

export const wireTask = z
  .strictObject(TASK_OUT_SHAPE)
  .meta({ description: 'A task as the service writes it; every string HTML-escaped.' });
export type WireTask = z.infer<typeof wireTask>;

export const wireProject = z
  .strictObject({
    id: escaped,
    name: escaped,
    notes: escaped,
    archived: wireDateTime.nullable(),
    color: z.string().nullable().meta({ description: '`#RRGGBB` or `#RRGGBBAA`, or null.' }),
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
export function listOf<T extends z.ZodType>(entry: T) {
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
