/**
 * Tasks (API.md section 4.1): defaults, get one, updates that change only the fields present,
 * a whole task posted back, complete/restore/trash/delete by fields, array POSTs.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import {
  expectError,
  expectInvalid,
  ok,
  taskList,
  unescapeAll,
  wireTask,
  type Client,
  type WireTask,
} from './support/api.js';
import { useHarness } from './support/setup.js';

const ID_PATTERN = /^[A-Za-z0-9_\-+/=.]{1,64}$/;

/** A task without what every write changes, to compare the rest. */
function content(task: WireTask): WireTask {
  return { ...task, rev: 0, updated: '' };
}

describe.each(ENGINES)('tasks on %s', (engine) => {
  const suite = useHarness(engine);

  async function revNow(client: Client): Promise<string> {
    return (await client.listTasks()).cursor;
  }

  it('creates a task with the defaults', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 'Buy milk' });
    expect(task).toEqual({
      id: expect.stringMatching(ID_PATTERN),
      title: 'Buy milk',
      notes: '',
      attribute: 'inbox',
      all_day: false,
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
      created: task.updated,
      updated: expect.any(String),
      rev: expect.any(Number),
    });
    const other = await client.createTask({ title: 'Another' });
    expect(other.id).not.toBe(task.id);
    expect(other.rev).toBe(task.rev + 1);
  });

  it('defaults the attribute to plan when start_at is set, and keeps an explicit one', async () => {
    const { client } = await suite().newClient();
    expect((await client.createTask({ title: 't', start_at: '2026-05-01' })).attribute).toBe('plan');
    expect((await client.createTask({ title: 't', start_at: '2026-05-01', attribute: 'next' })).attribute).toBe('next');
    for (const attribute of ['inbox', 'next', 'noplan', 'waiting'] as const) {
      expect((await client.createTask({ title: 't', attribute })).attribute).toBe(attribute);
    }
  });

  it('reads null as the default for notes and tags', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 't', notes: null, tags: null, repeater: '' });
    expect(task).toMatchObject({ notes: '', tags: [], repeater: null });
  });

  it('gets one task by id, and lists it', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 'one', notes: 'n', tags: ['x'], priority: 2 });
    expect(await client.getTask(task.id)).toEqual(task);
    expect((await client.listTasks()).entries).toEqual([task]);
    // A trailing slash is the list.
    expect(ok(await client.get('/v1/tasks/'), taskList).entries).toEqual([task]);
    expect(ok(await client.get('/v1/tasks/?limit=1'), taskList).entries).toEqual([task]);
  });

  it('finds an id holding / + = whether the path encodes them or not', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ id: 'a/b+c=', title: 'odd id' });
    for (const path of ['a/b+c=', 'a%2Fb%2Bc%3D', 'a%2fb+c%3d']) {
      expect(ok(await client.get(`/v1/tasks/${path}`), wireTask), path).toEqual(task);
    }
    // `+` in a path is a plus, never a space.
    expectError(await client.get('/v1/tasks/a/b%20c='), {
      status: 400,
      retcode: 'E007',
      retmsg: 'not found: task a/b c=',
    });
  });

  it('creates with a client-made id, then updates through it', async () => {
    const { client } = await suite().newClient();
    const id = 'client-made_1.2+3/4=';
    const task = await client.createTask({ id, title: 'mine' });
    expect(task.id).toBe(id);
    expect(await client.getTask(id)).toEqual(task);
    const changed = await client.createTask({ id, title: 'still mine' });
    expect(changed).toMatchObject({ id, title: 'still mine', created: task.created });
    expect((await client.listTasks()).entries).toHaveLength(1);
  });

  it('changes only the fields present in an update', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({
      title: 'full',
      notes: 'notes',
      attribute: 'next',
      start_at: '2026-05-01 09:00:00 +0000',
      end_at: '2026-05-02 09:00:00 +0000',
      project: 'P',
      context: '@c',
      tags: ['a', 'b'],
      priority: 1,
      repeater: 'FREQ=WEEKLY;BYDAY=MO',
    });
    const updated = await client.createTask({ id: task.id, priority: 3 });
    expect(updated).toEqual({ ...task, priority: 3, rev: expect.any(Number), updated: expect.any(String) });
    expect(updated.rev).toBeGreaterThan(task.rev);
    expect(updated.updated >= task.updated).toBe(true);

    const retitled = await client.createTask({ id: task.id, title: 'renamed', tags: ['c'] });
    expect(content(retitled)).toEqual({ ...content(updated), title: 'renamed', tags: ['c'] });
    const cleared = await client.createTask({
      id: task.id,
      end_at: null,
      project: null,
      context: null,
      notes: null,
      repeater: null,
    });
    expect(content(cleared)).toEqual({
      ...content(retitled),
      end_at: null,
      project: null,
      project_id: null,
      context: null,
      context_id: null,
      notes: '',
      repeater: null,
    });
  });

  it('takes the whole task posted back: unchanged fields stay, read-only fields are ignored', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({
      title: 'whole',
      notes: 'n',
      project: 'P',
      context: '@c',
      tags: ['t'],
      start_at: '2026-05-01',
    });
    const same = await client.createTask(wireTask.parse(unescapeAll(task)));
    expect(content(same)).toEqual(content(task));
    expect(same.rev).toBeGreaterThan(task.rev);

    const edited = await client.createTask({
      ...wireTask.parse(unescapeAll(same)),
      title: 'edited',
      created: '2000-01-01 00:00:00 +0000',
      updated: '2000-01-01 00:00:00 +0000',
      rev: 1,
      unknown_field: { nested: true },
    });
    expect(content(edited)).toEqual({ ...content(task), title: 'edited' });
    expect(edited.rev).toBeGreaterThan(same.rev);
  });

  it('completes, restores, trashes, untrashes and deletes by fields', async () => {
    const { client } = await suite().newClient('Asia/Shanghai');
    const task = await client.createTask({ title: 'lifecycle' });
    const done = await client.createTask({ id: task.id, completed: '2026-11-21 10:00:00 +0800' });
    expect(done.completed).toBe('2026-11-21 10:00:00 +0800');
    const reopened = await client.createTask({ id: task.id, completed: null });
    expect(reopened.completed).toBeNull();
    const trashed = await client.createTask({ id: task.id, trashed: '2026-11-21T03:00:00Z' });
    expect(trashed.trashed).toBe('2026-11-21 11:00:00 +0800');
    expect((await client.listTasks()).entries.map((entry) => entry.id)).toEqual([task.id]);
    const restored = await client.createTask({ id: task.id, trashed: null });
    expect(restored.trashed).toBeNull();
    expect(content(restored)).toEqual(content(task));

    const { cursor } = await client.listTasks();
    const deleted = await client.createTask({ id: task.id, deleted: '2026-11-21 12:00:00 +0800' });
    expect(deleted.deleted).toBe('2026-11-21 12:00:00 +0800');
    // Left out of a plain list, still there by id and in an incremental list as a tombstone.
    expect((await client.listTasks()).entries).toEqual([]);
    expect(await client.getTask(task.id)).toEqual(deleted);
    expect((await client.listTasks(`cursor=${cursor}`)).entries).toEqual([deleted]);
    expect((await client.listTasks('updated_after=2000-01-01')).entries).toEqual([deleted]);
  });

  it('moves a repeating task to its next occurrence instead of completing it', async () => {
    const { client } = await suite().newClient('Europe/Berlin');
    const task = await client.createTask({
      title: 'weekly',
      start_at: '2026-03-23 09:00:00 +0100',
      repeater: 'FREQ=WEEKLY;BYDAY=MO',
    });
    const next = await client.createTask({ id: task.id, completed: '2026-03-23 10:00:00 +0100' });
    // Same wall-clock time a week later, across the change to summer time.
    expect(next).toMatchObject({
      completed: null,
      start_at: '2026-03-30 09:00:00 +0200',
      repeater: 'FREQ=WEEKLY;BYDAY=MO',
    });
  });

  it('completes a repeating task whose next occurrence is past the last date the service can keep', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({
      title: 'daily',
      start_at: '2255-06-04 12:00:00 +0000',
      repeater: 'FREQ=DAILY',
    });
    const moved = await client.createTask({ id: task.id, completed: '2026-01-01' });
    expect(moved).toMatchObject({ completed: null, start_at: '2255-06-05 12:00:00 +0000' });
    const done = await client.createTask({ id: task.id, completed: '2026-01-02' });
    expect(done).toMatchObject({ completed: '2026-01-02 00:00:00 +0000', start_at: '2255-06-05 12:00:00 +0000' });
  });

  it('drops duplicate tags, keeping the first of each in order', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 't', tags: ['b', 'a', 'b', 'c', 'a'] });
    expect(task.tags).toEqual(['b', 'a', 'c']);
    expect((await client.createTask({ id: task.id, tags: ['x', 'x'] })).tags).toEqual(['x']);
  });

  describe('arrays', () => {
    it('answers {"entries":[...]} in input order with consecutive revs', async () => {
      const { client } = await suite().newClient();
      const existing = await client.createTask({ title: 'existing' });
      const entries = await client.postTasks([
        { title: 'first' },
        { id: existing.id, title: 'existing, renamed' },
        { id: 'client-id', title: 'third' },
        { title: 'fourth', tags: ['a', 'a'] },
      ]);
      expect(entries.map((task) => task.title)).toEqual(['first', 'existing, renamed', 'third', 'fourth']);
      expect(entries.map((task) => task.rev)).toEqual([1, 2, 3, 4].map((step) => existing.rev + step));
      expect(entries[1]?.id).toBe(existing.id);
      expect(entries[2]?.id).toBe('client-id');
      expect(entries[3]?.tags).toEqual(['a']);
      const listed = (await client.listTasks()).entries;
      expect(listed.map((task) => task.title)).toEqual(['first', 'existing, renamed', 'third', 'fourth']);
    });

    it('applies entries in order, so a later entry may update an earlier one', async () => {
      const { client } = await suite().newClient();
      const entries = await client.postTasks([
        { id: 'same', title: 'one' },
        { id: 'same', priority: 2 },
      ]);
      expect(entries.map((task) => [task.title, task.priority])).toEqual([
        ['one', 0],
        ['one', 2],
      ]);
      expect(entries[1]?.rev).toBe((entries[0]?.rev ?? 0) + 1);
      expect(await client.getTask('same')).toEqual(entries[1]);
    });

    it('is all or nothing: one bad entry stores nothing and leaves the revs as they were', async () => {
      const { client } = await suite().newClient();
      const existing = await client.createTask({ title: 'before' });
      const cursor = await revNow(client);
      const body = [{ id: existing.id, title: 'changed' }, { title: 'new' }, { title: 'bad', attribute: 'plan' }];
      expectInvalid(await client.post('/v1/tasks', body), '[2].attribute', JSON.stringify(body));
      expectInvalid(await client.post('/v1/tasks', [{ title: 'new' }, { title: 'x'.repeat(1001) }]), '[1].title');
      expectInvalid(
        await client.post('/v1/tasks', [
          { title: 'a', start_at: '2026-01-02' },
          { title: 'b', start_at: '2026-01-02', end_at: '2026-01-01' },
        ]),
        '[1].end_at',
      );
      expectError(await client.post('/v1/tasks', [{ title: 'new' }, { id: 'ghost', if_rev: 3, title: 'x' }]), {
        status: 400,
        retcode: 'E009',
        retmsg: 'conflict: task ghost changed',
      });
      expect(await client.getTask(existing.id)).toEqual(existing);
      expect((await client.listTasks(`cursor=${cursor}`)).entries).toEqual([]);
      expect(await revNow(client)).toBe(cursor);
      // The next change gets the next rev: nothing was used up by the refused requests.
      expect((await client.createTask({ title: 'after' })).rev).toBe(existing.rev + 1);
    });

    it('takes an empty array and up to 1000 entries', async () => {
      const { client } = await suite().newClient();
      expect(await client.postTasks([])).toEqual([]);
      const many = await client.postTasks(Array.from({ length: 1000 }, (_, index) => ({ title: `t${index}` })));
      expect(many).toHaveLength(1000);
      const revs = many.map((task) => task.rev);
      expect(revs[999]).toBe((revs[0] ?? 0) + 999);
      expect((await client.listTasks()).entries).toHaveLength(1000);
    });
  });
});
