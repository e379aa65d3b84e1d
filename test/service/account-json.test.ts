import { describe, expect, it } from 'vitest';
import type { Account } from '../../src/domain/account.js';
import { readAccountJson, writeAccountJson } from '../../src/service/formats/account-json.js';
import { isoOfMicros, microsOfIso } from '../../src/service/formats/iso-micros.js';

/** A version 1 export as the first release wrote it: every later release must still read it. */
const VERSION_1 = {
  format: 'task-service account',
  version: 1,
  exported: '2026-11-24T20:00:00.000000Z',
  username: 'alice',
  settings: { nickname: 'Alice', timezone: 'Europe/Berlin', language: 'en', week_start: 1 },
  projects: [{ id: 'p1', name: 'Home', notes: '', archived: null }],
  contexts: [{ id: 'c1', name: 'Phone' }],
  tasks: [
    {
      id: 't1',
      title: 'Call',
      notes: '',
      attribute: 'plan',
      all_day: false,
      start_at: '2026-03-29T07:30:00.000001Z',
      end_at: null,
      completed: null,
      trashed: null,
      project_id: 'p1',
      context_id: 'c1',
      tags: ['x'],
      priority: 2,
      repeater: 'FREQ=DAILY',
    },
  ],
};

describe('the account JSON', () => {
  it('reads version 1, to the microsecond', () => {
    const data = readAccountJson(JSON.stringify(VERSION_1));
    expect(data.settings).toEqual({ nickname: 'Alice', timezone: 'Europe/Berlin', language: 'en', weekStart: 1 });
    expect(data.tasks[0]?.startAt).toBe(Date.UTC(2026, 2, 29, 7, 30) * 1000 + 1);
    expect(data.tasks[0]?.project).toEqual({ id: 'p1' });
    // Version 1 had no kept iCalendar properties, no subtasks, order nor reminders.
    expect(data.tasks[0]?.icalExtras).toBe('');
    expect(data.tasks[0]).toMatchObject({ parentId: null, sortOrder: 0, reminders: [] });
  });

  it("writes version 3 with a task's kept iCalendar properties, parent, order and reminders, and reads them back", () => {
    const data = readAccountJson(JSON.stringify(VERSION_1));
    const kept = 'X-OTHER-APP:1\r\nGEO:1.5;2.5\r\n';
    const account: Account = {
      id: 1,
      username: 'alice',
      nickname: 'Alice',
      timezone: 'Europe/Berlin',
      language: 'en',
      weekStart: 1,
      disabled: false,
      created: 0,
      updated: 0,
    };
    const reminders = [
      { id: 'r1', at: Date.UTC(2026, 2, 29, 7, 0) * 1000 + 1 },
      { id: 'r2', before: 30, of: 'end' as const },
    ];
    const tasks = data.tasks.map((task) => ({ ...task, icalExtras: kept, parentId: 't0', sortOrder: -2, reminders }));
    const written = writeAccountJson(account, { ...data, tasks }, 0);
    expect(JSON.parse(written)).toMatchObject({
      version: 3,
      tasks: [
        {
          ical_extras: kept,
          parent_id: 't0',
          sort_order: -2,
          reminders: [
            { id: 'r1', at: '2026-03-29T07:00:00.000001Z' },
            { id: 'r2', before: 30, of: 'end' },
          ],
        },
      ],
    });
    expect(readAccountJson(written)).toEqual({ ...data, tasks });
  });

  it('refuses a newer version, and anything that is not an export, saying why', () => {
    expect(() => readAccountJson(JSON.stringify({ ...VERSION_1, version: 4 }))).toThrow(/version 4 .* newer/);
    // Version 2 tasks have ical_extras, version 3 ones also a parent, an order and reminders.
    expect(() => readAccountJson(JSON.stringify({ ...VERSION_1, version: 2 }))).toThrow(/tasks\.0\.ical_extras/);
    const version2Task = { ...VERSION_1.tasks[0], ical_extras: '' };
    expect(() => readAccountJson(JSON.stringify({ ...VERSION_1, version: 3, tasks: [version2Task] }))).toThrow(
      /tasks\.0\.parent_id/,
    );
    expect(() => readAccountJson('{"tasks": []}')).toThrow(/not a task-service account export/);
    expect(() => readAccountJson('nope')).toThrow(/not JSON/);
    const bad = { ...VERSION_1, tasks: [{ ...VERSION_1.tasks[0], start_at: 'tomorrow' }] };
    expect(() => readAccountJson(JSON.stringify(bad))).toThrow(/tasks\.0\.start_at/);
  });

  it('writes instants with six fractional digits and reads them back exactly', () => {
    for (const micros of [0, 1, 999, 1_000_000, 1_774_769_400_123_456, -1]) {
      expect(microsOfIso(isoOfMicros(micros))).toBe(micros);
    }
  });
});
