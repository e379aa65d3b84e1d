import { z } from 'zod';
import type { TaskInput } from '../../domain/task.js';
import { readTaskFields, TASK_IN_SHAPE } from '../wire/task-fields.js';
import { firstIssue } from './issues.js';
import { readOneOrMany } from './one-or-many.js';

/**
 * The shape of one task in a POST body, every field's keys (http/wire/task-fields.ts) and the
 * change number the client last saw; unknown fields are dropped (clients send whole tasks back).
 */
export const taskShape = z.object({ ...TASK_IN_SHAPE, if_rev: z.int().min(0).optional() });

/** Reads one task object of a POST body into typed values, dates in the account's zone. */
function readTask(body: unknown, zone: string): TaskInput {
  const parsed = taskShape.safeParse(body);
  if (!parsed.success) throw firstIssue(parsed.error);
  const fields = readTaskFields(parsed.data, zone);
  return parsed.data.if_rev === undefined ? fields : { ...fields, ifRev: parsed.data.if_rev };
}

/** The body of POST /v1/tasks: one task or an array of at most 1000. */
export function readTaskBody(body: unknown, zone: string): { inputs: TaskInput[]; asArray: boolean } {
  return readOneOrMany(body, (item) => readTask(item, zone));
}
