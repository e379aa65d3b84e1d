/**
 * The shapes of every answer of the service, checked strictly (a missing or extra field fails),
 * shared by the in-process suite and the tests that drive the real process.
 */
import { z } from 'zod';

/** `%Y-%m-%d %H:%M:%S %z`, the only date-time form the service writes. */
export const DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

const dateTime = z.string().regex(DATE_TIME);

export const wireTask = z.strictObject({
  id: z.string(),
  title: z.string(),
  notes: z.string(),
  attribute: z.enum(['inbox', 'next', 'plan', 'noplan', 'waiting']),
  all_day: z.boolean(),
  start_at: dateTime.nullable(),
  end_at: dateTime.nullable(),
  completed: dateTime.nullable(),
  trashed: dateTime.nullable(),
  deleted: dateTime.nullable(),
  project: z.string().nullable(),
  project_id: z.string().nullable(),
  context: z.string().nullable(),
  context_id: z.string().nullable(),
  tags: z.array(z.string()),
  priority: z.int().min(0).max(3),
  repeater: z.string().nullable(),
  created: dateTime,
  updated: dateTime,
  rev: z.int().positive(),
});
export type WireTask = z.infer<typeof wireTask>;

export const wireProject = z.strictObject({
  id: z.string(),
  name: z.string(),
  notes: z.string(),
  archived: dateTime.nullable(),
  deleted: dateTime.nullable(),
  created: dateTime,
  updated: dateTime,
  rev: z.int().positive(),
});
export type WireProject = z.infer<typeof wireProject>;

export const wireContext = z.strictObject({
  id: z.string(),
  name: z.string(),
  deleted: dateTime.nullable(),
  created: dateTime,
  updated: dateTime,
  rev: z.int().positive(),
});
export type WireContext = z.infer<typeof wireContext>;

export const wireSettings = z.strictObject({
  id: z.string(),
  username: z.string(),
  account: z.string(),
  nickname: z.string(),
  timezone: z.string(),
  user_timezone: z.string(),
  language: z.string(),
  week_start: z.int().min(0).max(6),
  created: dateTime,
  updated: dateTime,
});
export type WireSettings = z.infer<typeof wireSettings>;

export const wireError = z.strictObject({ retcode: z.string(), retmsg: z.string(), reqdata: z.string() });

export function listOf<T extends z.ZodType>(entry: T) {
  return z.strictObject({ entries: z.array(entry), cursor: z.string().min(1), has_more: z.boolean() });
}
export function entriesOf<T extends z.ZodType>(entry: T) {
  return z.strictObject({ entries: z.array(entry) });
}

export const taskList = listOf(wireTask);
export type TaskList = z.infer<typeof taskList>;
export const projectList = listOf(wireProject);
export const contextList = listOf(wireContext);
