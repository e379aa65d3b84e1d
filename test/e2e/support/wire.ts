import { expect } from 'vitest';
import type { z } from 'zod';
import {
  DATE_TIME,
  entriesOf,
  taskList,
  wireError,
  wireSettings,
  wireTask,
  type WireTask,
} from '../../support/wire-shapes.js';
import { jsonOf, type HttpResponse } from './http.js';

/** The answers' shapes, the same the in-process suite checks. */
export const WIRE_DATE_TIME = DATE_TIME;
export const taskSchema = wireTask;
export type { WireTask };
export const taskListSchema = taskList;
export const taskArraySchema = entriesOf(wireTask);
export const errorSchema = wireError;
export const settingsSchema = wireSettings;

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
