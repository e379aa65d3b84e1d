import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import type { PostgresStore } from '../../src/store/postgres/store.js';
import { LIST_BATCH_SIZE } from '../../src/store/limits.js';
import { UsernameTakenError } from '../../src/domain/errors.js';
import {
  contextDraft,
  openTestPostgresStore,
  projectDraft,
  readAll,
  taskDraft,
  type OpenedPostgresStore,
} from './postgres-fixture.js';

/*
 * The PostgreSQL store's own checks of the Store contract, beside the shared suite: mostly the
 * places where PostgreSQL differs (bigint as text, keyset batches, purge bookkeeping).
 */

let opened: OpenedPostgresStore;
let store: PostgresStore;
let accountCount = 0;

beforeAll(async () => {
  opened = await openTestPostgresStore();
  store = opened.store;
});
afterAll(async () => {
  await opened.cleanup();
});

async function newAccountId(target: PostgresStore = store): Promise<number> {
  accountCount += 1;
  const account = await target.createAccount({ username: `user${accountCount}`, passwordHash: null, timezone: 'UTC' });
  return account.id;
}

describe('accounts and tokens', () => {
  it('creates, finds and refuses a taken username', async () => {
    const created = await store.createAccount({ username: 'alice', passwordHash: 'hash', timezone: 'Asia/Shanghai' });
    expect(created).toMatchObject({ username: 'alice', timezone: 'Asia/Shanghai', disabled: false });
    expect(typeof created.id).toBe('number');
    expect(typeof created.created).toBe('number');
    expect(await store.findAccount('alice')).toEqual(created);
    expect(await store.getAccount(created.id)).toEqual(created);
    expect(await store.findAccount('nobody')).toBeUndefined();
    await expect(
      store.createAccount({ username: 'alice', passwordHash: null, timezone: 'UTC' }),
    ).rejects.toBeInstanceOf(UsernameTakenError);
  });

  it('disables and changes settings', async () => {
    const id = await newAccountId();
    const username = `user${accountCount}`;
    expect(await store.setDisabled(username, true)).toBe(true);
    expect((await store.getAccount(id))?.disabled).toBe(true);
    expect(await store.setDisabled('missing-user', true)).toBe(false);
    const before = await store.getAccount(id);
    const after = await store.updateSettings(id, { nickname: 'Ali', weekStart: 1 });
    expect(after).toMatchObject({ nickname: 'Ali', weekStart: 1, timezone: 'UTC', language: before?.language });
    expect(after.updated).toBeGreaterThan(before?.updated ?? Number.POSITIVE_INFINITY);
  });

  it('finds tokens with their account and revokes them', async () => {
    const id = await newAccountId();
    const hash = 'a'.repeat(64);
    await store.insertToken({ hash, accountId: id, scope: 'read', name: 'phone', expiresAt: 1_900_000_000_000_000 });
    const grant = await store.findToken({ hash, accountId: id });
    expect(grant).toMatchObject({ scope: 'read', expiresAt: 1_900_000_000_000_000, revoked: false });
    expect(grant?.account.id).toBe(id);
    expect(await store.revokeToken({ hash, accountId: id })).toBe(true);
    expect((await store.findToken({ hash, accountId: id }))?.revoked).toBe(true);
    expect(await store.revokeToken({ hash: 'b'.repeat(64), accountId: id })).toBe(false);
    expect(await store.findToken({ hash: 'b'.repeat(64), accountId: id })).toBeUndefined();
  });
});

describe('writes', () => {
  it('stamps consecutive revs and increasing updated, keeping created on update', async () => {
    const accountId = await newAccountId();
    const [first, second] = await store.write(accountId, async (tx) => [
      await tx.put('task', taskDraft('t1')),
      await tx.put('task', taskDraft('t2', { tags: ['a', 'ü 🎉'], priority: 3 })),
    ]);
    expect(first?.rev).toBe(1);
    expect(second?.rev).toBe(2);
    expect(second?.tags).toEqual(['a', 'ü 🎉']);
    expect(second?.updated).toBeGreaterThan(first?.updated ?? Number.POSITIVE_INFINITY);
    const updated = await store.write(accountId, (tx) =>
      tx.put('task', taskDraft('t1', { title: 'renamed', deleted: 5 })),
    );
    expect(updated).toMatchObject({ rev: 3, title: 'renamed', created: first?.created, deleted: 5 });
    expect(await store.get(accountId, 'task', 't1')).toEqual(updated);
  });

  it('rolls back everything when the work fails', async () => {
    const accountId = await newAccountId();
    await expect(
      store.write(accountId, async (tx) => {
        await tx.put('task', taskDraft('lost'));
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await store.get(accountId, 'task', 'lost')).toBeUndefined();
    const next = await store.write(accountId, (tx) => tx.put('task', taskDraft('kept')));
    expect(next.rev).toBe(1);
  });

  it('throws for an account that does not exist', async () => {
    await expect(store.write(999_999, async () => 'never')).rejects.toThrow('no such account');
  });

  it('finds labels by live name and tasks by label', async () => {
    const accountId = await newAccountId();
    await store.write(accountId, async (tx) => {
      const project = await tx.put('project', projectDraft('p1', { name: 'Home' }));
      await tx.put('context', contextDraft('c1', { name: '@desk' }));
      await tx.put('task', taskDraft('t1', { project: { id: project.id, name: project.name } }));
      await tx.put('task', taskDraft('t2', { project: { id: project.id, name: project.name }, deleted: 7 }));
    });
    await store.write(accountId, async (tx) => {
      expect((await tx.findLive('project', 'Home'))?.id).toBe('p1');
      expect((await tx.findLive('context', '@desk'))?.id).toBe('c1');
      expect(await tx.findLive('project', 'home')).toBeUndefined();
      expect((await tx.withLabel('project', 'p1')).map((task) => task.id)).toEqual(['t1']);
      expect(await tx.withLabel('context', 'c1')).toEqual([]);
      await tx.put('project', projectDraft('p1', { name: 'Home', deleted: 9 }));
      expect(await tx.findLive('project', 'Home')).toBeUndefined();
      // A deleted project's name is free again.
      await tx.put('project', projectDraft('p2', { name: 'Home' }));
    });
  });

  it('reports a clash of live label names as an invalid name', async () => {
    const accountId = await newAccountId();
    await store.write(accountId, (tx) => tx.put('context', contextDraft('c1', { name: '@home' })));
    const clash = store.write(accountId, (tx) => tx.put('context', contextDraft('c2', { name: '@home' })));
    await expect(clash).rejects.toBeInstanceOf(DomainError);
    await expect(clash).rejects.toMatchObject({ problem: { kind: 'invalid', field: 'name' } });
  });

  it('refuses text PostgreSQL cannot store as an invalid field', async () => {
    const accountId = await newAccountId();
    const put = store.write(accountId, (tx) => tx.put('task', taskDraft('nul', { title: 'a\u0000b' })));
    await expect(put).rejects.toMatchObject({ problem: { kind: 'invalid', field: 'title' } });
  });
});

describe('lists', () => {
  it('streams a large account in batches of ascending rev', async () => {
    const accountId = await newAccountId();
    const total = LIST_BATCH_SIZE * 2 + 17;
    await store.write(accountId, async (tx) => {
      for (let index = 0; index < total; index += 1) await tx.put('task', taskDraft(`t${index}`));
    });
    const snapshot = await store.list(accountId, 'task', { includeDeleted: false });
    expect(snapshot.headRev).toBe(total);
    const sizes: number[] = [];
    const revs: number[] = [];
    for (let batch = await snapshot.nextBatch(); batch !== null; batch = await snapshot.nextBatch()) {
      sizes.push(batch.length);
      revs.push(...batch.map((task) => task.rev));
    }
    await snapshot.close();
    expect(sizes).toEqual([LIST_BATCH_SIZE, LIST_BATCH_SIZE, 17]);
    expect(revs).toEqual(Array.from({ length: total }, (_, index) => index + 1));
  });

  it('applies afterRev, updatedAfter, includeDeleted and limit', async () => {
    const accountId = await newAccountId();
    const tasks = await store.write(accountId, async (tx) => [
      await tx.put('task', taskDraft('a')),
      await tx.put('task', taskDraft('b', { deleted: 1 })),
      await tx.put('task', taskDraft('c')),
      await tx.put('task', taskDraft('d')),
    ]);
    const ids = async (query: Parameters<PostgresStore['list']>[2]): Promise<string[]> =>
      (await readAll(await store.list(accountId, 'task', query))).map((task) => task.id);
    expect(await ids({ includeDeleted: false })).toEqual(['a', 'c', 'd']);
    expect(await ids({ includeDeleted: true })).toEqual(['a', 'b', 'c', 'd']);
    expect(await ids({ includeDeleted: true, afterRev: 2 })).toEqual(['c', 'd']);
    expect(await ids({ includeDeleted: true, updatedAfter: tasks[0]?.updated ?? 0 })).toEqual(['b', 'c', 'd']);
    expect(await ids({ includeDeleted: true, limit: 2 })).toEqual(['a', 'b']);
    expect(await ids({ includeDeleted: false, afterRev: 1, limit: 1 })).toEqual(['c']);
    expect(await ids({ includeDeleted: true, afterRev: 4 })).toEqual([]);
  });

  it('is one snapshot: later writes stay out of an open answer', async () => {
    const accountId = await newAccountId();
    await store.write(accountId, (tx) => tx.put('project', projectDraft('p1')));
    const snapshot = await store.list(accountId, 'project', { includeDeleted: true });
    await store.write(accountId, async (tx) => {
      await tx.put('project', projectDraft('p1', { name: 'changed' }));
      await tx.put('project', projectDraft('p2'));
    });
    expect(snapshot.headRev).toBe(1);
    const records = await readAll(snapshot);
    expect(records).toEqual([expect.objectContaining({ id: 'p1', name: 'project p1', rev: 1 })]);
    const fresh = await store.list(accountId, 'project', { includeDeleted: true, afterRev: snapshot.headRev });
    expect(fresh.headRev).toBe(3);
    expect((await readAll(fresh)).map((project) => [project.id, project.rev])).toEqual([
      ['p1', 2],
      ['p2', 3],
    ]);
  });

  it('gives the connection back when the caller stops early', async () => {
    const small = await openTestPostgresStore({ poolSize: 1, connectTimeoutMs: 2_000 });
    try {
      const account = await small.store.createAccount({ username: 'early', passwordHash: null, timezone: 'UTC' });
      await small.store.write(account.id, async (tx) => {
        for (let index = 0; index < LIST_BATCH_SIZE + 1; index += 1) await tx.put('context', contextDraft(`c${index}`));
      });
      for (let round = 0; round < 3; round += 1) {
        const snapshot = await small.store.list(account.id, 'context', { includeDeleted: false });
        expect((await snapshot.nextBatch())?.length).toBe(LIST_BATCH_SIZE);
        await snapshot.close();
        await snapshot.close();
      }
      expect(await small.store.get(account.id, 'context', 'c0')).toMatchObject({ id: 'c0' });
    } finally {
      await small.cleanup();
    }
  });
});

describe('purge', () => {
  // Purge spans all accounts, so it gets a database without the other tests' tombstones; its
  // clock is the test's, since a tombstone's age is the server's time of its deletion.
  let purgeStore: OpenedPostgresStore;
  let clock = 0;
  beforeAll(async () => {
    purgeStore = await openTestPostgresStore({ clock: () => clock });
  });
  afterAll(async () => {
    await purgeStore.cleanup();
  });

  it('removes tombstones by the time the server deleted them and raises the purge marks, never lowering them', async () => {
    const purging = purgeStore.store;
    const accountId = await newAccountId(purging);
    const other = await newAccountId(purging);
    const at = async <T>(micros: number, write: () => Promise<T>): Promise<T> => {
      clock = micros;
      return write();
    };
    // Every `deleted` a client sent is backdated to 1: only the server's time counts.
    const early = await at(100, () =>
      purging.write(accountId, async (tx) => [
        await tx.put('project', projectDraft('p', { deleted: 1 })),
        await tx.put('task', taskDraft('deleted-early', { deleted: 1 })),
      ]),
    );
    await at(50, () => purging.write(other, (tx) => tx.put('context', contextDraft('c', { deleted: 1 }))));
    const later = await at(500, () =>
      purging.write(accountId, (tx) => tx.put('task', taskDraft('deleted-later', { deleted: 1 }))),
    );
    await at(10_000, () =>
      purging.write(accountId, async (tx) => {
        await tx.put('task', taskDraft('recent', { deleted: 1 }));
        await tx.put('task', taskDraft('live'));
      }),
    );
    const purgeMarks = async (): Promise<[number, number]> => {
      const snapshot = await purging.list(accountId, 'task', { includeDeleted: true });
      await snapshot.close();
      return [snapshot.purgedRev, snapshot.purgedUpdated];
    };
    expect(await purgeMarks()).toEqual([0, 0]);

    expect(await purging.purge(300)).toBe(3);
    expect(await purging.get(accountId, 'project', 'p')).toBeUndefined();
    expect(await purging.get(accountId, 'task', 'deleted-early')).toBeUndefined();
    expect(await purging.get(other, 'context', 'c')).toBeUndefined();
    expect(await purging.get(accountId, 'task', 'deleted-later')).toMatchObject({ deleted: 1 });
    const newest = early[1];
    expect(await purgeMarks()).toEqual([newest?.rev, newest?.updated]);

    expect(await purging.purge(1_000)).toBe(1);
    expect(await purging.get(accountId, 'task', 'deleted-later')).toBeUndefined();
    expect(await purging.get(accountId, 'task', 'recent')).toBeDefined();
    expect(await purging.get(accountId, 'task', 'live')).toBeDefined();
    expect(await purgeMarks()).toEqual([later.rev, later.updated]);
    // A purge with an earlier bound removes nothing and leaves the marks where they are.
    expect(await purging.purge(300)).toBe(0);
    expect(await purgeMarks()).toEqual([later.rev, later.updated]);
  });
});
