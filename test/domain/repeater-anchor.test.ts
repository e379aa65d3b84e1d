import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { NEW_TASK, type Task } from '../../src/domain/task.js';
import { mergeTask } from '../../src/domain/task-rules.js';

const CONTEXT = {
  newId: 'new',
  zone: 'UTC',
  project: undefined,
  context: undefined,
  now: 0,
  newReminderId: () => 'reminder',
} as const;

/** A repeating task without start_at or end_at, as earlier versions accepted and stored it. */
const LEGACY: Task = {
  ...NEW_TASK,
  id: 'legacy',
  title: 'Water the plants',
  notes: '',
  attribute: 'inbox',
  allDay: false,
  startAt: null,
  endAt: null,
  completed: null,
  trashed: null,
  deleted: null,
  project: null,
  context: null,
  tags: [],
  priority: 0,
  repeater: 'FREQ=WEEKLY',
  icalExtras: '',
  created: 1,
  updated: 1,
  rev: 1,
};

function problemOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    if (error instanceof DomainError) return error.problem;
    throw error;
  }
  return undefined;
}

describe('a repeater needs start_at or end_at to repeat from', () => {
  it('is refused on a new task without either', () => {
    expect(problemOf(() => mergeTask(undefined, { title: 't', repeater: 'FREQ=DAILY' }, CONTEXT))).toEqual({
      kind: 'invalid',
      field: 'repeater',
      reason: 'needs start_at (or end_at) to repeat from',
    });
  });

  it('lets a stored task without either be sent back unchanged, or its repeater be cleared', () => {
    const sentBack = {
      title: LEGACY.title,
      startAt: null,
      endAt: null,
      repeater: LEGACY.repeater,
      priority: 1,
    } as const;
    expect(mergeTask(LEGACY, sentBack, CONTEXT).priority).toBe(1);
    expect(mergeTask(LEGACY, { repeater: null }, CONTEXT).repeater).toBeNull();
    expect(problemOf(() => mergeTask(LEGACY, { repeater: 'FREQ=DAILY' }, CONTEXT))).toMatchObject({
      field: 'repeater',
    });
  });
});
