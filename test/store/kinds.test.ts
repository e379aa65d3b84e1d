/**
 * Each kind's storage is described once and both engines decode it through that description:
 * the same stored row gives the same record on SQLite (raw tuples) and PostgreSQL (objects with
 * bigints as text), including the rows a schema check or a hand edit could leave odd.
 */
import { describe, expect, it } from 'vitest';
import { NEW_TASK, type Task } from '../../src/domain/task.js';
import { decodeOutcome, encodeOutcome } from '../../src/store/kinds/kept-outcome.js';
import { COLUMN_VALUES } from '../../src/store/kinds/records.js';
import { KIND_TABLES } from '../../src/store/postgres/tables.js';
import { SQLITE_KINDS } from '../../src/store/sqlite/kind-statements.js';

const TASK: Task = {
  ...NEW_TASK,
  id: 't1',
  title: 'Tom & Jerry',
  notes: '<b>',
  attribute: 'plan',
  allDay: true,
  startAt: 1_700_000_000_000_000,
  endAt: null,
  completed: null,
  trashed: null,
  deleted: null,
  project: { id: 'p', name: 'Work' },
  context: null,
  tags: ['a', 'b"c'],
  priority: 2,
  repeater: 'FREQ=WEEKLY',
  icalExtras: 'GEO:1.5;2.5\r\n',
  parentId: 'parent',
  sortOrder: 3,
  reminders: [{ id: 'r', before: 10, of: 'start' }],
  reminderDue: 1_699_999_400_000_000,
  created: 1_600_000_000_000_000,
  updated: 1_600_000_000_000_001,
  rev: 7,
};

/** The row of TASK as each driver hands it back, with the project's name lost. */
const SQLITE_TUPLE = [
  't1',
  'Tom & Jerry',
  '<b>',
  'plan',
  1,
  1_700_000_000_000_000,
  null,
  null,
  null,
  null,
  'p',
  null,
  null,
  null,
  '["a","b\\"c"]',
  2,
  'FREQ=WEEKLY',
  1_600_000_000_000_000,
  1_600_000_000_000_001,
  7,
  'GEO:1.5;2.5\r\n',
  'parent',
  3,
  '[{"id":"r","before":10,"of":"start"}]',
  1_699_999_400_000_000,
];
const POSTGRES_ROW = {
  id: 't1',
  title: 'Tom & Jerry',
  notes: '<b>',
  attribute: 'plan',
  all_day: true,
  start_at: '1700000000000000',
  end_at: null,
  completed: null,
  trashed: null,
  deleted: null,
  project_id: 'p',
  project_name: null,
  context_id: null,
  context_name: null,
  tags: ['a', 'b"c'],
  priority: 2,
  repeater: 'FREQ=WEEKLY',
  created: '1600000000000000',
  updated: '1600000000000001',
  rev: '7',
  ical_extras: 'GEO:1.5;2.5\r\n',
  parent_id: 'parent',
  sort_order: 3,
  reminders: '[{"id":"r","before":10,"of":"start"}]',
  reminder_due: '1699999400000000',
};

describe('kinds described once', () => {
  it('decodes a task label whose name was lost as the label with an empty name, on both engines', () => {
    const expected = { ...TASK, project: { id: 'p', name: '' } };
    expect(SQLITE_KINDS.task.fromTuple(SQLITE_TUPLE)).toEqual(expected);
    expect(KIND_TABLES.task.codec.fromObject(POSTGRES_ROW)).toEqual(expected);
  });

  it('refuses a value outside what the schema allows, naming the column, on both engines', () => {
    expect(() => SQLITE_KINDS.task.fromTuple(SQLITE_TUPLE.with(3, 'someday'))).toThrow('tasks.attribute');
    expect(() => KIND_TABLES.task.codec.fromObject({ ...POSTGRES_ROW, priority: 9 })).toThrow('tasks.priority');
    expect(() => SQLITE_KINDS.task.fromTuple(SQLITE_TUPLE.with(14, '{}'))).toThrow('tasks.tags');
  });

  it('lists the same columns in the same order on both engines', () => {
    for (const kind of ['task', 'project', 'context'] as const) {
      expect(SQLITE_KINDS[kind].columns).toEqual(KIND_TABLES[kind].codec.columns);
    }
  });

  it('keeps a write outcome as domain data and gives it back whole', () => {
    const outcome = { kind: 'task' as const, zone: 'Asia/Shanghai', many: true, records: [TASK] };
    expect(decodeOutcome(encodeOutcome(outcome))).toEqual(outcome);
    expect(() => decodeOutcome('{"entries":[]}')).toThrow('unknown shape');
  });

  it('replays an outcome kept before tasks kept iCalendar properties (migration 6) as keeping none', () => {
    const keptBefore = (row: readonly unknown[]): string =>
      JSON.stringify({ version: 1, kind: 'task', zone: 'UTC', many: false, rows: [row] });
    const row = COLUMN_VALUES.task(TASK);
    const flat = { parentId: null, sortOrder: 0, reminders: [], reminderDue: null };
    expect(row.at(-5)).toBe(TASK.icalExtras);
    // Kept before migration 9 (SQLite), 10 (PostgreSQL): a top-level task without order or reminders.
    expect(decodeOutcome(keptBefore(row.slice(0, -4))).records).toEqual([{ ...TASK, ...flat }]);
    expect(decodeOutcome(keptBefore(row.slice(0, -5))).records).toEqual([{ ...TASK, ...flat, icalExtras: '' }]);
    // Only columns added later may be missing: a row shorter still is refused.
    expect(() => decodeOutcome(keptBefore(row.slice(0, -6)))).toThrow('wrong length');
    expect(() => decodeOutcome(keptBefore([...row, 'more']))).toThrow('wrong length');
  });
});
