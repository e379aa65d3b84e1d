/** When the app shows a reminder (API.md 4.5): the times it works out from the tasks it has. */
import { describe, expect, it } from 'vitest';
import type { Task } from '../../../web/src/api.ts';
import { dueBetween, firingsOf } from '../../../web/src/reminders-due.ts';
import { webTask } from './support/task.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 27, 9);

function task(fields: Partial<Task>): Task {
  return webTask('t1', { title: 'Call mom', attribute: 'plan', created: T0 - HOUR, updated: T0 - HOUR, ...fields });
}

describe('reminders falling due', () => {
  it('takes an absolute time, minutes before the start or the deadline, and none without that date', () => {
    const fired = firingsOf(
      task({
        startAt: T0,
        reminders: [
          { id: 'a', at: T0 - HOUR },
          { id: 'b', before: 15, of: 'start_at' },
          { id: 'c', before: 0, of: 'end_at' },
        ],
      }),
    );
    expect(fired.map((firing) => firing.at)).toEqual([T0 - HOUR, T0 - 15 * 60_000]);
    expect(fired[0]).toMatchObject({ taskId: 't1', title: 'Call mom', key: `t1/${T0 - HOUR}` });
  });

  it('gives nothing for a completed, trashed or deleted task, or one without reminders', () => {
    const reminders = [{ at: T0 }];
    expect(firingsOf(task({ reminders, completed: T0 - 1 }))).toEqual([]);
    expect(firingsOf(task({ reminders, trashed: T0 - 1 }))).toEqual([]);
    expect(firingsOf(task({ reminders, deleted: T0 - 1 }))).toEqual([]);
    expect(firingsOf(task({}))).toEqual([]);
  });

  it('a moved occurrence moves its relative reminder, under a new key', () => {
    const first = firingsOf(task({ startAt: T0, reminders: [{ before: 10, of: 'start_at' }] }));
    const next = firingsOf(task({ startAt: T0 + 24 * HOUR, reminders: [{ before: 10, of: 'start_at' }] }));
    expect(next[0]?.at).toBe((first[0]?.at ?? 0) + 24 * HOUR);
    expect(next[0]?.key).not.toBe(first[0]?.key);
  });

  it('lists what fell due in a window, in time order, and when the next one falls due', () => {
    const tasks = [
      task({ id: 'x', reminders: [{ at: T0 + 3000 }, { at: T0 + 1000 }] }),
      task({ id: 'y', reminders: [{ at: T0 + 5000 }, { at: T0 + 9000 }] }),
      task({ id: 'z', reminders: [{ at: T0 }] }),
    ];
    const { due, next } = dueBetween(tasks, T0, T0 + 4000);
    expect(due.map((firing) => firing.key)).toEqual([`x/${T0 + 1000}`, `x/${T0 + 3000}`]);
    expect(next).toBe(T0 + 5000);
    expect(dueBetween(tasks, T0 + 9000, T0 + 10_000)).toEqual({ due: [], next: null });
  });
});
