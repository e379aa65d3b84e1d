import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { taskDraft } from './suite.js';

describe('sqlite group commit', () => {
  let dir: string;
  let store: SqliteStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-group-'));
    store = openSqliteStore({ file: path.join(dir, 'tasks.sqlite') });
    await store.migrate();
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('commits concurrent writes together, rolling back only the one that fails', async () => {
    const account = await store.createAccount({ username: 'group', passwordHash: null, timezone: 'UTC' });
    const writes = Array.from({ length: 60 }, (_, index) =>
      store.write(account.id, async (tx) => {
        const first = await tx.put('task', taskDraft(`t${index}-a`));
        if (index === 17) throw new Error('refused');
        const second = await tx.put('task', taskDraft(`t${index}-b`));
        return [first.rev, second.rev];
      }),
    );
    const outcomes = await Promise.allSettled(writes);

    expect(outcomes[17]?.status).toBe('rejected');
    const revs = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? outcome.value : []));
    expect(revs).toEqual(Array.from({ length: 118 }, (_, index) => index + 1));
    expect(await store.get(account.id, 'task', 't17-a')).toBeUndefined();
    expect((await store.get(account.id, 'task', 't59-b'))?.rev).toBe(118);
  });

  it('answers a write only once it is committed: a second connection sees it at once', async () => {
    const account = await store.createAccount({ username: 'durable', passwordHash: null, timezone: 'UTC' });
    const observer = new Database(path.join(dir, 'tasks.sqlite'), { readonly: true });
    try {
      const revs = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.write(account.id, async (tx) => {
            const task = await tx.put('task', taskDraft(`seen${index}`));
            return task.rev;
          }),
        ),
      );
      const row = observer
        .prepare('SELECT count(*) AS n, max(rev) AS head FROM tasks WHERE account_id = ?')
        .get(account.id);
      expect(row).toEqual({ n: 20, head: Math.max(...revs) });
    } finally {
      observer.close();
    }
  });

  it('lets the event loop come round between the members of a long group', async () => {
    const account = await store.createAccount({ username: 'long', passwordHash: null, timezone: 'UTC' });
    let loopCameRound = false;
    const seenBySecond: boolean[] = [];
    const first = store.write(account.id, async (tx) => {
      setImmediate(() => (loopCameRound = true));
      await tx.put('task', taskDraft('long-a'));
      // A member that keeps the thread far longer than a group may run without yielding.
      const until = performance.now() + 40;
      while (performance.now() < until);
    });
    const second = store.write(account.id, async (tx) => {
      seenBySecond.push(loopCameRound);
      await tx.put('task', taskDraft('long-b'));
    });
    await Promise.all([first, second]);
    // Both in one group: one commit gave them consecutive revs, and the loop ran in between.
    expect(seenBySecond).toEqual([true]);
    expect((await store.get(account.id, 'task', 'long-b'))?.rev).toBe(2);
  });

  it('keeps accounts apart within one group', async () => {
    const one = await store.createAccount({ username: 'one', passwordHash: null, timezone: 'UTC' });
    const two = await store.createAccount({ username: 'two', passwordHash: null, timezone: 'UTC' });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        store.write(
          index % 2 === 0 ? one.id : two.id,
          async (tx) => (await tx.put('task', taskDraft(`x${index}`))).rev,
        ),
      ),
    );
    expect(results.filter((_, index) => index % 2 === 0)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(results.filter((_, index) => index % 2 === 1)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });
});
