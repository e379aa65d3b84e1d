import { describe, expect, it } from 'vitest';
import type { Account } from '../../src/domain/account.js';
import type { Context, Project } from '../../src/domain/label.js';
import { NEW_TASK, type Task } from '../../src/domain/task.js';
import { renderContext, renderProject, renderSettings, renderTask } from '../../src/http/wire/render.js';

/** Microseconds of a UTC date and time (month 1-12). */
function utc(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  return Date.UTC(year, month - 1, day, hour, minute, second) * 1000;
}

/** The keys of a JSON object text, in the order written. */
function keysOf(json: string): string[] {
  const parsed: unknown = JSON.parse(json);
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`not a JSON object: ${json}`);
  return Object.keys(parsed);
}

const fullTask: Task = {
  ...NEW_TASK,
  id: 'task-1+/=.',
  title: `Call "Bob" & <Alice>'s team 📞`,
  notes: '任务 e\u0301\nline two',
  attribute: 'next',
  allDay: false,
  startAt: utc(2026, 1, 15, 8, 0, 0) + 123_456,
  endAt: utc(2026, 7, 15, 8),
  completed: utc(2026, 7, 16, 9, 15, 30),
  trashed: utc(2026, 7, 17),
  deleted: utc(2026, 7, 18),
  project: { id: 'p1', name: 'Home & <Garden>' },
  context: { id: 'c1', name: "@bob's" },
  tags: ['a&b', '<i>', '标签'],
  priority: 3,
  repeater: 'FREQ=WEEKLY;BYDAY=MO',
  parentId: 'parent-1',
  sortOrder: -5,
  reminders: [
    { id: 'r<1>', at: utc(2026, 1, 15, 7, 45) },
    { id: 'r2', before: 15, of: 'end' },
  ],
  // Derived for the due-reminder read, never on the wire.
  reminderDue: utc(2026, 1, 15, 7, 45),
  // Kept for iCalendar exports, never on the wire.
  icalExtras: 'X-NOT-ON-THE-WIRE:1\r\n',
  created: utc(2026, 1, 1),
  updated: utc(2026, 7, 18, 0, 0, 1),
  rev: 42,
};

describe('renderTask', () => {
  it('writes every field, in order, escaped, dates in the zone', () => {
    const text = renderTask(fullTask, 'Europe/Berlin');
    const expected = {
      id: 'task-1+/=.',
      title: 'Call &quot;Bob&quot; &amp; &lt;Alice&gt;&#39;s team 📞',
      notes: '任务 e\u0301\nline two',
      attribute: 'next',
      all_day: false,
      start_at: '2026-01-15 09:00:00 +0100',
      end_at: '2026-07-15 10:00:00 +0200',
      completed: '2026-07-16 11:15:30 +0200',
      trashed: '2026-07-17 02:00:00 +0200',
      deleted: '2026-07-18 02:00:00 +0200',
      project: 'Home &amp; &lt;Garden&gt;',
      project_id: 'p1',
      context: '@bob&#39;s',
      context_id: 'c1',
      tags: ['a&amp;b', '&lt;i&gt;', '标签'],
      priority: 3,
      repeater: 'FREQ=WEEKLY;BYDAY=MO',
      parent_id: 'parent-1',
      sort_order: -5,
      reminders: [
        { id: 'r&lt;1&gt;', at: '2026-01-15 08:45:00 +0100' },
        { id: 'r2', before: 15, of: 'end_at' },
      ],
      created: '2026-01-01 01:00:00 +0100',
      updated: '2026-07-18 02:00:01 +0200',
      rev: 42,
    };
    const parsed: unknown = JSON.parse(text);
    expect(parsed).toEqual(expected);
    expect(keysOf(text)).toEqual(Object.keys(expected));
    expect(text).toContain('📞');
  });

  it('writes unset values as null and an empty tag list as []', () => {
    const bare: Task = {
      ...fullTask,
      title: 'Buy milk',
      notes: '',
      attribute: 'inbox',
      allDay: true,
      startAt: null,
      endAt: null,
      completed: null,
      trashed: null,
      deleted: null,
      project: null,
      context: null,
      tags: [],
      priority: 0,
      repeater: null,
      parentId: null,
      sortOrder: 0,
      reminders: [],
    };
    expect(JSON.parse(renderTask(bare, 'UTC'))).toEqual({
      id: 'task-1+/=.',
      title: 'Buy milk',
      notes: '',
      attribute: 'inbox',
      all_day: true,
      start_at: null,
      end_at: null,
      completed: null,
      trashed: null,
      deleted: null,
      project: null,
      project_id: null,
      context: null,
      context_id: null,
      tags: [],
      priority: 0,
      repeater: null,
      parent_id: null,
      sort_order: 0,
      reminders: [],
      created: '2026-01-01 00:00:00 +0000',
      updated: '2026-07-18 00:00:01 +0000',
      rev: 42,
    });
  });

  it('concatenates into a valid list', () => {
    const list = `{"entries":[${renderTask(fullTask, 'UTC')},${renderTask(fullTask, 'Asia/Kolkata')}]}`;
    const parsed: unknown = JSON.parse(list);
    expect(parsed).toMatchObject({
      entries: [{ created: '2026-01-01 00:00:00 +0000' }, { created: '2026-01-01 05:30:00 +0530' }],
    });
  });
});

describe('renderProject and renderContext', () => {
  it('write every field in order', () => {
    const project: Project = {
      id: 'p1',
      name: 'Q3 <plan>',
      notes: "don't",
      archived: utc(2026, 3, 1),
      color: '#ff8800',
      deleted: null,
      created: utc(2026, 1, 1),
      updated: utc(2026, 3, 1),
      rev: 7,
    };
    const projectText = renderProject(project, 'America/New_York');
    expect(keysOf(projectText)).toEqual([
      'id',
      'name',
      'notes',
      'archived',
      'color',
      'deleted',
      'created',
      'updated',
      'rev',
    ]);
    expect(JSON.parse(projectText)).toEqual({
      id: 'p1',
      name: 'Q3 &lt;plan&gt;',
      notes: 'don&#39;t',
      archived: '2026-02-28 19:00:00 -0500',
      color: '#ff8800',
      deleted: null,
      created: '2025-12-31 19:00:00 -0500',
      updated: '2026-02-28 19:00:00 -0500',
      rev: 7,
    });

    const context: Context = {
      id: 'c1',
      name: '@home',
      deleted: utc(2026, 7, 1),
      created: utc(2026, 1, 1),
      updated: utc(2026, 7, 1),
      rev: 8,
    };
    const contextText = renderContext(context, 'America/New_York');
    expect(keysOf(contextText)).toEqual(['id', 'name', 'deleted', 'created', 'updated', 'rev']);
    expect(JSON.parse(contextText)).toEqual({
      id: 'c1',
      name: '@home',
      deleted: '2026-06-30 20:00:00 -0400',
      created: '2025-12-31 19:00:00 -0500',
      updated: '2026-06-30 20:00:00 -0400',
      rev: 8,
    });
  });
});

describe('renderSettings', () => {
  it('writes the account in its own zone with the offset now', () => {
    const account: Account = {
      id: 17,
      username: 'ann.lee@example',
      nickname: 'Ann <3',
      timezone: 'America/St_Johns',
      language: 'en',
      weekStart: 1,
      disabled: false,
      created: utc(2026, 1, 15, 12),
      updated: utc(2026, 7, 15, 12),
    };
    const text = renderSettings(account, utc(2026, 1, 20));
    expect(keysOf(text)).toEqual([
      'id',
      'username',
      'account',
      'nickname',
      'timezone',
      'user_timezone',
      'language',
      'week_start',
      'created',
      'updated',
    ]);
    expect(JSON.parse(text)).toEqual({
      id: '17',
      username: 'ann.lee@example',
      account: 'ann.lee@example',
      nickname: 'Ann &lt;3',
      timezone: 'America/St_Johns',
      user_timezone: '(GMT-03:30) America/St_Johns',
      language: 'en',
      week_start: 1,
      created: '2026-01-15 08:30:00 -0330',
      updated: '2026-07-15 09:30:00 -0230',
    });
    expect(JSON.parse(renderSettings(account, utc(2026, 7, 20)))).toMatchObject({
      user_timezone: '(GMT-02:30) America/St_Johns',
    });
  });
});
