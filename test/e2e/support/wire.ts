import { expect } from 'vitest';
import { z } from 'zod';
import { jsonOf, type HttpResponse } from './http.js';

/** `%Y-%m-%d %H:%M:%S %z`, as every date-time on the wire (API.md section 2). */
export const WIRE_DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

const dateTime = z.string().regex(WIRE_DATE_TIME);

/** A task as the contract shows it (API.md 4.1); unknown extra fields would be tolerated. */
export const taskSchema = z.object({
  id: z.string().min(1).max(64),
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
  priority: z.number().int().min(0).max(3),
  repeater: z.string().nullable(),
  created: dateTime,
  updated: dateTime,
  rev: z.number().int().positive(),
});
export type WireTask = z.infer<typeof taskSchema>;

export const taskListSchema = z.object({
  entries: z.array(taskSchema),
  cursor: z.string().min(1),
  has_more: z.boolean(),
});

export const taskArraySchema = z.object({ entries: z.array(taskSchema) });

export const errorSchema = z.object({ retcode: z.string(), retmsg: z.string(), reqdata: z.string() });

export const settingsSchema = z.object({
  id: z.string(),
  username: z.string(),
  timezone: z.string(),
  user_timezone: z.string(),
});

/** The answer's body read with `schema`; the test fails showing status and body otherwise. */
export function bodyOf<T>(response: HttpResponse, schema: z.ZodType<T>, status = 200): T {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  const parsed = schema.safeParse(jsonOf(response));
  if (!parsed.success) throw new Error(`unexpected body: ${response.text}\n${parsed.error.message}`);
  return parsed.data;
}

/** Checks that the answer is the contract's error `retcode` with its status. */
export function expectError(response: HttpResponse, status: number, retcode: string): z.infer<typeof errorSchema> {
  const body = bodyOf(response, errorSchema, status);
  expect(body.retcode).toBe(retcode);
  return body;
}
