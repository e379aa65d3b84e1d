/**
 * Subtasks, order and reminders through /v1 (contract sections 4.4 and 4.5, issue #22), on both
 * engines: every rule refused as E004 naming the field and the reason, nothing stored; subtree
 * moves, trashing, restoring and deletion in one commit, each task below its own change.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import { expectInvalid, unescapeAll, type WireTask } from './support/api.js';
import { useHarness } from './support/setup.js';

function held(task: WireTask): Record<string, unknown> {
  const value = unescapeAll(task);
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  return Object.fromEntries(Object.entries(value));
}

describe.each(ENGINES)('subtasks and reminders on %s', (engine) => {
  const suite = useHarness(engine);

  it('refuses a parent of another account, a deleted parent and a loop of any length, storing nothing', async () => {
    const { client } = await suite().newClient();
    const { client: other } = await suite().newClient();
    const theirs = await other.createTask({ title: 'theirs' });
    const gone = await client.createTask({ title: 'gone' });
    await client.createTask({ id: gone.id, deleted: gone.created });
    const a = await client.createTask({ id: 'a', title: 'a' });
    await client.createTask({ id: 'b', title: 'b', parent_id: 'a' });
    await client.createTask({ id: 'c', title: 'c', parent_id: 'b' });
    const before = await client.listTasks();

    expectInvalid(await client.post('/v1/tasks', { title: 'x', parent_id: theirs.id }), 'parent_id');
    expectInvalid(await client.post('/v1/tasks', { title: 'x', parent_id: gone.id }), 'parent_id');
    expectInvalid(await client.post('/v1/tasks', { id: 'a', parent_id: 'a' }), 'parent_id');
    expectInvalid(await client.post('/v1/tasks', { id: 'a', parent_id: 'c' }), 'parent_id');
    // In an array, the index too; the entries before it are not stored either.
    const many = await client.post('/v1/tasks', [{ title: 'fine' }, { id: 'b', parent_id: 'c' }]);
    expectInvalid(many, '[1].parent_id');
    expect(many.json).toMatchObject({ retmsg: expect.stringContaining('loop') });
    expect((await client.listTasks()).entries).toEqual(before.entries);
    expect(await client.getTask('a')).toEqual(a);
  });

  it('keeps a subtask in its parent project: set with the parent, moved with it, refused elsewhere', async () => {
    const { client } = await suite().newClient();
    const parent = await client.createTask({ id: 'p', title: 'parent', project: 'Home' });
    const child = await client.createTask({ id: 'c', title: 'child', project: 'Work' });
    const grandchild = await client.createTask({ id: 'g', title: 'grandchild', parent_id: 'c' });
    expect(grandchild.project).toBe('Work');

    const start = await client.listTasks();
    const adopted = await client.createTask({ id: 'c', parent_id: 'p' });
    expect(adopted).toMatchObject({ parent_id: 'p', project: 'Home', project_id: parent.project_id });
    expect(await client.getTask('g')).toMatchObject({ project: 'Home', parent_id: 'c' });
    expectInvalid(await client.post('/v1/tasks', { id: 'c', project: 'Work' }), 'project');
    expectInvalid(await client.post('/v1/tasks', { title: 'new', parent_id: 'p', project: 'Work' }), 'project');

    // The parent moves: its whole subtree with it, each a change of its own seen by a syncing client.
    const moved = await client.createTask({ id: 'p', project: 'Garden' });
    const synced = await client.listTasks(`cursor=${start.cursor}`);
    expect(synced.entries.map((task) => task.id).sort()).toEqual(['c', 'g', 'p']);
    expect(synced.entries.every((task) => task.project === 'Garden')).toBe(true);
    expect(new Set(synced.entries.map((task) => task.rev)).size).toBe(3);
    expect(moved.project).toBe('Garden');

    // Top-level again: it keeps the project it has.
    expect(await client.createTask({ id: 'c', parent_id: null })).toMatchObject({ parent_id: null, project: 'Garden' });
    expect(child.project).toBe('Work');
  });

  it('trashes, restores and deletes a whole subtree in one request', async () => {
    const { client } = await suite().newClient();
    await client.postTasks([
      { id: 'p', title: 'parent' },
      { id: 'c1', title: 'one', parent_id: 'p' },
      { id: 'c2', title: 'two', parent_id: 'p' },
      { id: 'g', title: 'deep', parent_id: 'c1' },
    ]);
    const trashedAt = '2026-11-20 10:00:00 +0000';
    await client.createTask({ id: 'p', trashed: trashedAt });
    for (const id of ['c1', 'c2', 'g']) expect((await client.getTask(id)).trashed).toBe(trashedAt);
    await client.createTask({ id: 'p', trashed: null });
    for (const id of ['c1', 'c2', 'g']) expect((await client.getTask(id)).trashed).toBeNull();
    // Completing a parent leaves its subtasks as they are.
    await client.createTask({ id: 'p', completed: trashedAt });
    expect((await client.getTask('c1')).completed).toBeNull();
    await client.createTask({ id: 'p', deleted: trashedAt });
    for (const id of ['c1', 'c2', 'g']) expect((await client.getTask(id)).deleted).toBe(trashedAt);
    expect((await client.listTasks()).entries).toEqual([]);
  });

  it('keeps reminders with ids of its own, and refuses what section 4.5 does not allow', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({
      title: 'dentist',
      start_at: '2030-05-01 09:00:00 +0000',
      reminders: [{ at: '2030-05-01 08:00:00 +0000' }, { before: 15, of: 'start_at' }],
      sort_order: 7,
    });
    expect(task.sort_order).toBe(7);
    expect(task.reminders).toEqual([
      { id: expect.any(String), at: '2030-05-01 08:00:00 +0000' },
      { id: expect.any(String), before: 15, of: 'start_at' },
    ]);
    // Sent back whole, they keep their ids.
    expect(await client.createTask({ ...held(task), title: 'dentist!' })).toMatchObject({ reminders: task.reminders });

    const eleven = Array.from({ length: 11 }, (_unused, minutes) => ({ before: minutes, of: 'end_at' }));
    expectInvalid(await client.post('/v1/tasks', { id: task.id, reminders: eleven }), 'reminders');
    expectInvalid(
      await client.post('/v1/tasks', { id: task.id, reminders: [{ before: 40_321, of: 'start_at' }] }),
      'reminders[0].before',
    );
    expectInvalid(await client.post('/v1/tasks', { id: task.id, reminders: [{ at: 'tomorrow' }] }), 'reminders[0].at');
    expectInvalid(await client.post('/v1/tasks', { id: task.id, reminders: [{ before: 5 }] }), 'reminders[0]');
    expectInvalid(
      await client.post('/v1/tasks', [{ title: 'ok' }, { title: 'bad', reminders: [{ at: 42 }] }]),
      '[1].reminders[0].at',
    );
    expect((await client.listTasks()).entries).toEqual([await client.getTask(task.id)]);
    expect((await client.getTask(task.id)).reminders).toEqual(task.reminders);
  });

  it('plans the next reminder of every open task for the due-reminder read, repeats included', async () => {
    const { client, user } = await suite().newClient();
    const accountId = await suite().accountIdOf(user);
    const store = suite().harness.store;
    const start = Date.UTC(2031, 0, 6, 9) * 1000;
    const task = await client.createTask({
      title: 'weekly review',
      start_at: '2031-01-06 09:00:00 +0000',
      repeater: 'FREQ=WEEKLY',
      reminders: [{ before: 30, of: 'start_at' }],
    });
    const due = async (): Promise<number[]> =>
      (await store.dueReminders(start + 8 * 86_400_000_000, 10_000))
        .filter((row) => row.accountId === accountId)
        .map((row) => row.due);
    expect(await due()).toEqual([start - 30 * 60_000_000]);
    // Completing the occurrence moves the task to the next one, and its reminder with it.
    await client.createTask({ id: task.id, completed: '2031-01-06 10:00:00 +0000' });
    expect(await due()).toEqual([start + 7 * 86_400_000_000 - 30 * 60_000_000]);
    await client.createTask({ id: task.id, trashed: '2031-01-06 10:00:00 +0000' });
    expect(await due()).toEqual([]);
  });

  it('changes none of the new fields when an old client posts a whole task back without them', async () => {
    const { client } = await suite().newClient();
    await client.createTask({ id: 'p', title: 'parent' });
    const child = await client.createTask({
      id: 'c',
      title: 'child',
      parent_id: 'p',
      sort_order: 3,
      reminders: [{ at: '2030-01-01 09:00:00 +0000' }],
    });
    // A Doit.im client knows the fields of its time only.
    const { parent_id: _parent, sort_order: _order, reminders: _reminders, ...known } = held(child);
    const done = await client.createTask({ ...known, completed: '2030-01-01 10:00:00 +0000' });
    expect(done).toMatchObject({ parent_id: 'p', sort_order: 3, reminders: child.reminders });
  });
});
