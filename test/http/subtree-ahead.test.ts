/**
 * Issue #22: a subtree of 10,000 tasks changes in one request without holding other accounts. On
 * a real SQLite file and a real PostgreSQL, another account's writes are answered while the move
 * runs, and the result (and what a syncing client sees) equals the same change made in one commit.
 */
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { WINDOW_MS } from '../../src/http/load-shedder.js';
import { upsertOne } from '../../src/service/tasks.js';
import type { Store } from '../../src/store/store.js';
import { ENGINES } from '../support/harness.js';
import { expectInvalid, type Client, type WireTask } from './support/api.js';
import { useHarness } from './support/setup.js';
import { writingMeanwhile } from './support/meanwhile.js';
import { dav } from '../dav/support.js';
import { defaultResourceName } from '../../src/domain/calendar.js';

/** A root with `wide` children, each with `deep` children of its own: wide × (deep + 1) below. */
async function plantTree(store: Store, accountId: number, wide: number, deep: number): Promise<void> {
  await store.write(accountId, async (tx) => {
    const now = Date.now() * 1000;
    await upsertOne(tx, 'UTC', { id: 'root', title: 'root', project: { name: 'Home' } }, now);
    for (let child = 0; child < wide; child += 1) {
      await upsertOne(tx, 'UTC', { id: `c${child}`, title: 'child', parentId: 'root' }, now);
      for (let grandchild = 0; grandchild < deep; grandchild += 1) {
        await upsertOne(tx, 'UTC', { id: `c${child}-${grandchild}`, title: 'leaf', parentId: `c${child}` }, now);
      }
    }
  });
}

/** What a change of the tree decides of each task, stamps aside. */
function shape(tasks: readonly WireTask[]): Map<string, string> {
  return new Map(
    tasks.map((task) => [
      task.id,
      [task.parent_id, task.project, task.trashed === null, task.deleted === null, task.title].join('|'),
    ]),
  );
}

/** Every change after `cursor`, as a syncing client gets them. */
async function changesAfter(client: Client, cursor: string): Promise<WireTask[]> {
  return (await client.listTasks(`cursor=${encodeURIComponent(cursor)}`)).entries;
}

describe.each(ENGINES)('a subtree of 10,000 tasks on %s', (engine) => {
  const suite = useHarness(engine, { app: { caldav: true } });

  it('moves in one request while another account writes, as one commit would', { timeout: 300_000 }, async () => {
    const store = suite().harness.store;
    const mover = await suite().newClient();
    const reference = await suite().newClient();
    const { client: other } = await suite().newClient();
    for (const { user } of [mover, reference]) await plantTree(store, await suite().accountIdOf(user), 100, 99);
    // Planting ran in this process, the server's, without a turn of its event loop: on a slow
    // machine that is a delay the load shedder refuses the next request for (E503), until a
    // window without it has passed.
    await sleep(3 * WINDOW_MS);
    const start = await mover.client.listTasks();
    expect(start.entries).toHaveLength(10_001);
    const moverId = await suite().accountIdOf(mover.user);
    const headBefore = (await store.head(moverId))?.rev ?? 0;

    // Another account writes one task after the other while the move runs: some are answered
    // before the move is.
    const { result: moved, answeredFirst } = await writingMeanwhile(
      other,
      mover.client.createTask({ id: 'root', project: 'Garden' }),
    );
    expect(answeredFirst).toBeGreaterThan(0);
    expect(moved.project).toBe('Garden');

    // The same move in one commit, by the service's own rule for an unbounded subtree.
    const referenceId = await suite().accountIdOf(reference.user);
    await store.write(referenceId, (tx) => upsertOne(tx, 'UTC', { id: 'root', project: { name: 'Garden' } }, 0));
    const after = (await mover.client.listTasks()).entries;
    expect(shape(after)).toEqual(shape((await reference.client.listTasks()).entries));
    // One project made (by name, in the request) and each task written once, all pointing at it.
    expect(new Set(after.map((task) => task.project_id))).toEqual(new Set([moved.project_id]));
    expect((await mover.client.get(`/v1/projects/${moved.project_id ?? ''}`)).status).toBe(200);
    expect(((await store.head(moverId))?.rev ?? 0) - headBefore).toBe(10_002);

    // A syncing client sees every task change, each with its own rev.
    const synced = await changesAfter(mover.client, start.cursor);
    expect(synced).toHaveLength(10_001);
    expect(new Set(synced.map((task) => task.rev)).size).toBe(10_001);
  });

  it(
    'deletes through CalDAV a task whose subtree is larger than one commit, while another account writes, as one commit would',
    { timeout: 300_000 },
    async () => {
      const store = suite().harness.store;
      const ahead = await suite().newClient();
      const reference = await suite().newClient();
      const { client: other } = await suite().newClient();
      for (const { user } of [ahead, reference]) await plantTree(store, await suite().accountIdOf(user), 100, 99);
      await sleep(3 * WINDOW_MS);
      const start = await ahead.client.listTasks();
      const referenceStart = await reference.client.listTasks();
      const projectId = start.entries.find((task) => task.id === 'root')?.project_id ?? '';
      const aheadId = await suite().accountIdOf(ahead.user);
      const headBefore = (await store.head(aheadId))?.rev ?? 0;

      const { result: deleted, answeredFirst } = await writingMeanwhile(
        other,
        dav(suite().harness.app, ahead.user, {
          method: 'DELETE',
          url: `/dav/calendars/${ahead.user.username}/${projectId}/${defaultResourceName('root')}`,
        }),
      );
      expect(deleted.status).toBe(204);
      expect(answeredFirst).toBeGreaterThan(0);

      const referenceId = await suite().accountIdOf(reference.user);
      await store.write(referenceId, (tx) => upsertOne(tx, 'UTC', { id: 'root', deleted: Date.now() * 1000 }, 0));
      const synced = await changesAfter(ahead.client, start.cursor);
      expect(synced).toHaveLength(10_001);
      expect(shape(synced)).toEqual(shape(await changesAfter(reference.client, referenceStart.cursor)));
      expect(synced.filter((task) => task.deleted === null)).toEqual([]);
      expect(((await store.head(aheadId))?.rev ?? 0) - headBefore).toBe(10_001);
    },
  );

  it('moves through CalDAV (MOVE) a task whose subtree is larger than one commit, as one commit would', async () => {
    const store = suite().harness.store;
    const ahead = await suite().newClient();
    const reference = await suite().newClient();
    for (const { user } of [ahead, reference]) await plantTree(store, await suite().accountIdOf(user), 12, 99);
    await sleep(3 * WINDOW_MS);
    const start = await ahead.client.listTasks();
    const referenceStart = await reference.client.listTasks();
    const projectId = start.entries.find((task) => task.id === 'root')?.project_id ?? '';
    const calendars = `/dav/calendars/${ahead.user.username}`;
    expect(
      (await dav(suite().harness.app, ahead.user, { method: 'MKCALENDAR', url: `${calendars}/garden/` })).status,
    ).toBe(201);
    const moved = await dav(suite().harness.app, ahead.user, {
      method: 'MOVE',
      url: `${calendars}/${projectId}/${defaultResourceName('root')}`,
      headers: { destination: `http://localhost${calendars}/garden/${defaultResourceName('root')}` },
    });
    expect(moved.status).toBe(201);

    const referenceId = await suite().accountIdOf(reference.user);
    await store.write(referenceId, async (tx) => {
      await tx.put('project', { id: 'garden', name: 'garden', notes: '', archived: null, color: null, deleted: null });
      await upsertOne(tx, 'UTC', { id: 'root', project: { id: 'garden' } }, 0);
    });
    const synced = await changesAfter(ahead.client, start.cursor);
    expect(synced).toHaveLength(1_201);
    // Written ahead on SQLite, the task itself comes last; in one commit (PostgreSQL), first.
    expect(synced.at(engine === 'sqlite' ? -1 : 0)?.id).toBe('root');
    expect(shape(synced)).toEqual(shape(await changesAfter(reference.client, referenceStart.cursor)));
    expect(new Set(synced.map((task) => task.project_id))).toEqual(new Set(['garden']));
  });

  it(
    'trashes, restores and deletes a subtree larger than one commit as one commit would',
    { timeout: 300_000 },
    async () => {
      const store = suite().harness.store;
      const ahead = await suite().newClient();
      const reference = await suite().newClient();
      for (const { user } of [ahead, reference]) await plantTree(store, await suite().accountIdOf(user), 12, 99);
      const referenceId = await suite().accountIdOf(reference.user);
      const changes = [
        { trashed: '2026-11-20 10:00:00 +0000' },
        { trashed: null },
        { deleted: '2026-11-21 10:00:00 +0000' },
      ];
      const inputs = [
        { trashed: Date.UTC(2026, 10, 20, 10) * 1000 },
        { trashed: null },
        { deleted: Date.UTC(2026, 10, 21, 10) * 1000 },
      ];
      for (const [index, change] of changes.entries()) {
        const before = await ahead.client.listTasks();
        const referenceBefore = await reference.client.listTasks();
        await ahead.client.createTask({ id: 'root', ...change });
        const input = inputs[index] ?? {};
        await store.write(referenceId, (tx) => upsertOne(tx, 'UTC', { id: 'root', ...input }, 0));
        const synced = await changesAfter(ahead.client, before.cursor);
        expect(synced).toHaveLength(1_201);
        const wanted = await changesAfter(reference.client, referenceBefore.cursor);
        expect(shape(synced)).toEqual(shape(wanted));
        // Every task below got the root's own stamp, as in one commit.
        expect(new Set(synced.map((task) => `${task.trashed}|${task.deleted}`)).size).toBe(1);
      }
    },
  );

  it('writes nothing ahead for a request refused, and carries large changes of one array as one commit would', async () => {
    const store = suite().harness.store;
    const ahead = await suite().newClient();
    const reference = await suite().newClient();
    // Two children of 600 tasks each: the root's move and c0's trashing are both large.
    for (const { user } of [ahead, reference]) await plantTree(store, await suite().accountIdOf(user), 2, 600);
    const aheadId = await suite().accountIdOf(ahead.user);
    const headBefore = (await store.head(aheadId))?.rev;

    const refused = await ahead.client.post('/v1/tasks', [
      { id: 'root', project: 'Garden' },
      { title: 'x', parent_id: 'none' },
    ]);
    expectInvalid(refused, '[1].parent_id');
    expect((await store.head(aheadId))?.rev).toBe(headBefore);

    const trashed = '2026-11-20 10:00:00 +0000';
    await ahead.client.postTasks([
      { id: 'root', project: 'Garden' },
      { id: 'c0', trashed },
    ]);
    const referenceId = await suite().accountIdOf(reference.user);
    await store.write(referenceId, async (tx) => {
      await upsertOne(tx, 'UTC', { id: 'root', project: { name: 'Garden' } }, 0);
      await upsertOne(tx, 'UTC', { id: 'c0', trashed: Date.UTC(2026, 10, 20, 10) * 1000 }, 0);
    });
    const after = (await ahead.client.listTasks()).entries;
    expect(shape(after)).toEqual(shape((await reference.client.listTasks()).entries));
    expect(after.filter((task) => task.trashed === trashed)).toHaveLength(601);
    expect(after.every((task) => task.project === 'Garden')).toBe(true);
  });
});
