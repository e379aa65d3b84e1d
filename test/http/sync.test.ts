/**
 * Listing and sync (API.md section 5): ascending `rev`, `limit` and `has_more`, cursors that
 * continue exactly while other writes interleave, a final cursor that returns exactly what
 * changed since, `updated_after` strictly after, tombstones only in incremental lists.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import { contextList, ok, projectList, type Client, type TaskList, type WireTask } from './support/api.js';
import { useHarness } from './support/setup.js';

/** Revs of a page are strictly ascending, all above the position the page continues from. */
function expectAscending(page: TaskList, after: number): void {
  let previous = after;
  for (const task of page.entries) {
    expect(task.rev).toBeGreaterThan(previous);
    previous = task.rev;
  }
}

/** Everything the account has, tombstones included (nothing was purged in these tests). */
async function everything(client: Client): Promise<Map<string, WireTask>> {
  const all = await client.listTasks('updated_after=1970-01-02');
  return new Map(all.entries.map((task) => [task.id, task]));
}

describe.each(ENGINES)('listing and sync on %s', (engine) => {
  const suite = useHarness(engine);

  it('lists in ascending rev with a cursor and has_more false', async () => {
    const { client } = await suite().newClient();
    const empty = await client.listTasks();
    expect(empty).toEqual({ entries: [], cursor: expect.any(String), has_more: false });
    const created = await client.postTasks([{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    const updated = await client.createTask({ id: created[0]?.id, title: 'a2' });
    const list = await client.listTasks();
    expect(list.entries.map((task) => task.title)).toEqual(['b', 'c', 'a2']);
    expect(list.entries[2]).toEqual(updated);
    expect(list.has_more).toBe(false);
    expectAscending(list, 0);
  });

  it('cuts at limit with has_more, and the cursor continues exactly', async () => {
    const { client } = await suite().newClient();
    const created = await client.postTasks(Array.from({ length: 5 }, (_, index) => ({ title: `t${index}` })));
    const exact = await client.listTasks('limit=5');
    expect(exact.has_more).toBe(false);
    expect(exact.entries).toEqual(created);

    const first = await client.listTasks('limit=2');
    expect(first.has_more).toBe(true);
    expect(first.entries).toEqual(created.slice(0, 2));
    const second = await client.listTasks(`cursor=${first.cursor}&limit=2`);
    expect(second.has_more).toBe(true);
    expect(second.entries).toEqual(created.slice(2, 4));
    const third = await client.listTasks(`limit=2&cursor=${second.cursor}`);
    expect(third.has_more).toBe(false);
    expect(third.entries).toEqual(created.slice(4));
    expect((await client.listTasks(`cursor=${third.cursor}`)).entries).toEqual([]);
    expect(third.cursor).toBe(exact.cursor);
  });

  it('pages through with limit while other writes interleave: nothing missed, nothing twice', async () => {
    const { client, user } = await suite().newClient();
    const initial = await client.postTasks(
      Array.from({ length: 20 }, (_, index) => ({ title: `t${index}`, notes: 'v1' })),
    );
    const seen = new Map<string, WireTask>();
    const seenRevs = new Set<number>();
    let cursor: string | undefined;
    let position = 0;
    let round = 0;
    for (;;) {
      const page = await client.listTasks(cursor === undefined ? 'limit=6' : `cursor=${cursor}&limit=6`);
      expectAscending(page, position);
      for (const task of page.entries) {
        expect(seenRevs.has(task.rev), `rev ${task.rev} twice`).toBe(false);
        seenRevs.add(task.rev);
        seen.set(task.id, task);
        position = task.rev;
      }
      cursor = page.cursor;
      if (!page.has_more) break;
      round += 1;
      // Between pages: change one already seen, one not yet seen, add one, delete one.
      const early = initial[round - 1];
      const late = initial[19 - round];
      if (early === undefined || late === undefined) throw new Error('unexpected round');
      await client.createTask({ id: early.id, notes: `seen, changed in round ${round}` });
      await client.createTask({ id: late.id, notes: `unseen, changed in round ${round}` });
      await client.createTask({ title: `added in round ${round}` });
      const doomed = initial[5 + round];
      if (doomed === undefined) throw new Error('unexpected round');
      await client.createTask({ id: doomed.id, deleted: '2026-01-01' });
    }
    expect(round).toBeGreaterThan(2);
    // The client's picture, built from pages, is exactly the store's.
    expect(seen).toEqual(await everything(client));
    const snapshot = await suite().harness.store.list(await suite().accountIdOf(user), 'task', {
      includeDeleted: true,
    });
    const stored = new Map<string, number>();
    try {
      for (let batch = await snapshot.nextBatch(); batch !== null; batch = await snapshot.nextBatch()) {
        for (const task of batch) stored.set(task.id, task.rev);
      }
    } finally {
      await snapshot.close();
    }
    expect(new Map([...seen].map(([id, task]) => [id, task.rev]))).toEqual(stored);
    expect(stored.size).toBe(20 + round);
    // And the last cursor has nothing more to give.
    expect((await client.listTasks(`cursor=${cursor}`)).entries).toEqual([]);
  });

  it('continues an updated_after answer cut by limit with its cursor', async () => {
    const { client } = await suite().newClient();
    const created = await client.postTasks(Array.from({ length: 5 }, (_, index) => ({ title: `t${index}` })));
    const first = await client.listTasks('updated_after=2000-01-01&limit=3');
    expect(first).toMatchObject({ entries: created.slice(0, 3), has_more: true });
    const rest = await client.listTasks(`cursor=${first.cursor}&limit=3`);
    expect(rest).toMatchObject({ entries: created.slice(3), has_more: false });
  });

  it('a final cursor returns exactly the later changes, tombstones included, then nothing', async () => {
    const { client } = await suite().newClient();
    const [a, b, c] = await client.postTasks([{ title: 'a' }, { title: 'b' }, { title: 'c' }]);
    if (a === undefined || b === undefined || c === undefined) throw new Error('three tasks expected');
    const synced = await client.listTasks();
    const changedB = await client.createTask({ id: b.id, title: 'b2' });
    const created = await client.createTask({ title: 'd' });
    const deletedA = await client.createTask({ id: a.id, deleted: '2026-01-01 00:00:00 +0000' });
    const later = await client.listTasks(`cursor=${synced.cursor}`);
    expect(later.entries).toEqual([changedB, created, deletedA]);
    expect(later.has_more).toBe(false);
    expect((await client.listTasks(`cursor=${later.cursor}`)).entries).toEqual([]);
    // Cursors are reusable: the first one still gives the same answer.
    expect((await client.listTasks(`cursor=${synced.cursor}`)).entries).toEqual(later.entries);
  });

  it('lists everything for an updated_after before 1970 when nothing was purged', async () => {
    const { client } = await suite().newClient('Asia/Tokyo');
    const task = await client.createTask({ title: 't' });
    // Midnight of 1970-01-01 in Tokyo is before the epoch; DateTime.MinValue is 0001-01-01.
    for (const query of [
      'updated_after=1970-01-01',
      'updated_after=0001-01-01',
      'updated_after=1900-01-01T00:00:00Z',
    ]) {
      expect((await client.listTasks(query)).entries, query).toEqual([task]);
    }
  });

  it('omits tombstones from a plain list and includes them in incremental ones', async () => {
    const { client } = await suite().newClient();
    const before = await client.listTasks();
    const kept = await client.createTask({ title: 'kept' });
    const gone = await client.createTask({ title: 'gone' });
    const tombstone = await client.createTask({ id: gone.id, deleted: '2026-01-01' });
    expect((await client.listTasks()).entries).toEqual([kept]);
    expect((await client.listTasks(`cursor=${before.cursor}`)).entries).toEqual([kept, tombstone]);
    expect((await client.listTasks('updated_after=2000-01-01')).entries).toEqual([kept, tombstone]);
    expect((await client.listTasks('limit=1')).entries).toEqual([kept]);
    // A deleted task may be restored; it then shows in plain lists again.
    const back = await client.createTask({ id: gone.id, deleted: null });
    expect((await client.listTasks()).entries).toEqual([kept, back]);
  });

  it('gives every change a strictly increasing rev, across resources and concurrent requests', async () => {
    const { client } = await suite().newClient();
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        index % 3 === 0
          ? client.createProject({ name: `p${index}` })
          : client.createTask({ title: `t${index}`, project: `p${index % 3}` }),
      ),
    );
    const tasks = await client.listTasks();
    const projects = ok(await client.get('/v1/projects'), projectList);
    const revs = [...tasks.entries.map((task) => task.rev), ...projects.entries.map((project) => project.rev)];
    expect(new Set(revs).size).toBe(revs.length);
    expectAscending(tasks, 0);
    expect(answers).toHaveLength(12);
    // The cursor of every resource is the account's change number.
    expect(tasks.cursor).toBe(projects.cursor);
  });

  it('syncs projects and contexts with cursors and limits too', async () => {
    const { client } = await suite().newClient();
    const start = ok(await client.get('/v1/projects'), projectList);
    const p1 = await client.createProject({ name: 'one' });
    const p2 = await client.createProject({ name: 'two' });
    const c1 = await client.createContext({ name: '@one' });
    const page = ok(await client.get(`/v1/projects?cursor=${start.cursor}&limit=1`), projectList);
    expect(page).toMatchObject({ entries: [p1], has_more: true });
    const rest = ok(await client.get(`/v1/projects?cursor=${page.cursor}`), projectList);
    expect(rest).toMatchObject({ entries: [p2], has_more: false });
    const deleted = await client.createProject({ id: p1.id, deleted: '2026-01-01' });
    expect(ok(await client.get(`/v1/projects?cursor=${rest.cursor}`), projectList).entries).toEqual([deleted]);
    expect(ok(await client.get('/v1/projects'), projectList).entries).toEqual([p2]);
    expect(ok(await client.get(`/v1/contexts?cursor=${start.cursor}`), contextList).entries).toEqual([c1]);
  });

  it('lists one account only', async () => {
    const { client: alice } = await suite().newClient();
    const { client: bob } = await suite().newClient();
    await alice.createTask({ title: 'alice' });
    const bobs = await bob.createTask({ title: 'bob' });
    expect((await bob.listTasks()).entries).toEqual([bobs]);
    expect((await bob.listTasks('updated_after=2000-01-01')).entries).toEqual([bobs]);
    expect((await bob.listTasks('cursor=c1.0')).entries).toEqual([bobs]);
  });
});
