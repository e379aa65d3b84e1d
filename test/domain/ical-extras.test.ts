import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { icalExtrasProblem } from '../../src/domain/ical-extras.js';
import { NEW_TASK, TASK_LIMITS, type Task } from '../../src/domain/task.js';
import { mergeTask } from '../../src/domain/task-rules.js';

const CONTEXT = {
  newId: 'new',
  zone: 'UTC',
  project: undefined,
  context: undefined,
  now: 0,
  newReminderId: () => 'reminder',
} as const;

const KEPT = 'X-OTHER-APP-COLOR:#ff8800\r\nGEO:37.386013;-122.082932\r\nATTENDEE;CN="Doe, J":mailto:j@example.com\r\n';

/** A task imported from another app's calendar, repeating daily. */
const IMPORTED: Task = {
  ...NEW_TASK,
  id: 'imported',
  title: 'Water the plants',
  notes: '',
  attribute: 'plan',
  allDay: false,
  startAt: Date.UTC(2026, 0, 1, 8) * 1000,
  endAt: null,
  completed: null,
  trashed: null,
  deleted: null,
  project: null,
  context: null,
  tags: [],
  priority: 0,
  repeater: 'FREQ=DAILY',
  icalExtras: KEPT,
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

describe("a task's kept iCalendar properties", () => {
  it('stay as they are through a change that does not name them, as every API change is', () => {
    expect(mergeTask(IMPORTED, { title: 'Water the garden', tags: ['home'] }, CONTEXT).icalExtras).toBe(KEPT);
    // Completing a repeating task moves it on, properties kept.
    const next = mergeTask(IMPORTED, { completed: IMPORTED.startAt }, CONTEXT);
    expect(next.startAt).toBe(Date.UTC(2026, 0, 2, 8) * 1000);
    expect(next.icalExtras).toBe(KEPT);
    expect(mergeTask(undefined, { title: 'new' }, CONTEXT).icalExtras).toBe('');
  });

  it('are set by an import, none as well', () => {
    expect(mergeTask(IMPORTED, { icalExtras: 'X-A:1\r\n' }, CONTEXT).icalExtras).toBe('X-A:1\r\n');
    expect(mergeTask(IMPORTED, { icalExtras: '' }, CONTEXT).icalExtras).toBe('');
  });

  it('are content lines each ended by CRLF, within the bound, or refused naming ical_extras', () => {
    expect(icalExtrasProblem(KEPT)).toBeUndefined();
    // A sub-component is kept whole, BEGIN to END (CalDAV keeps a client's VALARM).
    expect(icalExtrasProblem('BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT5M\r\nEND:VALARM\r\n')).toBeUndefined();
    const refused = (icalExtras: string) => problemOf(() => mergeTask(IMPORTED, { icalExtras }, CONTEXT));
    expect(refused('X-A:1')).toEqual({
      kind: 'invalid',
      field: 'ical_extras',
      reason: 'each content line ends in CRLF',
    });
    for (const [extras, reason] of [
      ['X-A:1\r\n\r\n', 'no ":" after the property name'],
      ['X-A:1\rX-B:2\r\n', 'a line break inside a content line'],
      ['X A:1\r\n', '"X A" is no property name'],
      [':1\r\n', '"" is no property name'],
      ['X-A;P=1\r\n', 'no ":" before the value'],
      ['BEGIN:VALARM\r\n', 'BEGIN:VALARM is never closed'],
      ['BEGIN:VALARM\r\nEND:VEVENT\r\n', 'END:VEVENT closes no open component'],
      ['end:VTODO\r\n', 'END:VTODO closes no open component'],
      ['BEGIN:VTODO\r\nEND:VTODO\r\n', 'a VTODO cannot be kept inside a task'],
      ['BEGIN:VALARM;X=1\r\nEND:VALARM\r\n', 'BEGIN is no property'],
    ] as const) {
      expect(refused(extras), extras).toMatchObject({ field: 'ical_extras', reason: expect.stringContaining(reason) });
    }
    const longest = `X-A:${'x'.repeat(TASK_LIMITS.icalExtrasMax - 6)}\r\n`;
    expect(longest).toHaveLength(TASK_LIMITS.icalExtrasMax);
    expect(icalExtrasProblem(longest)).toBeUndefined();
    expect(refused(`X${longest}`)).toMatchObject({ reason: `longer than ${TASK_LIMITS.icalExtrasMax} characters` });
  });
});
