import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '../../src/domain/task.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { readAll, taskDraft } from './postgres-fixture.js';

/*
 * What only a server shared by several processes can get wrong: concurrent migrations, change
 * numbers handed out by two pools at once, and accounts that must not wait for each other. Each
 * "process" is a store with its own pool on the same database.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

function storeOn(database: TestDatabase, poolSize = 5): PostgresStore {
  const store = openPostgresStore({ url: database.url, poolSize });
  cleanups.push(() => store.close());
  return store;
}

/** A promise the test settles by hand, to hold a transaction open. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

describe('migrations', () => {
  it('lets several processes migrate one empty database at once', async () => {
    const database = await freshDatabase();
    const stores = [storeOn(database), storeOn(database), storeOn(database), storeOn(database)];
    await Promise.all(stores.map((store) => store.migrate()));
    await stores[0]?.migrate();

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const recorded = await client.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(recorded.rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
    } finally {
      await client.end();
    }
    const account = await stores[3]?.createAccount({ username: 'after-race', passwordHash: null, timezone: 'UTC' });
    expect(account?.username).toBe('after-race');
  });

  it('upgrades a version 5 database: its tasks keep no iCalendar properties, its bytes stay counted right', async () => {
    const database = await freshDatabase();
    const pool = new pg.Pool({ connectionString: database.url });
    try {
      await applyMigrations(
        pool,
        MIGRATIONS.filter((migration) => migration.version <= 5),
      );
      const { rows } = await pool.query<{ id: string }>(
        `INSERT INTO accounts (username, nickname, timezone, language, week_start, created, updated, rev, last_updated)
           VALUES ('old', 'old', 'UTC', 'en', 1, 1, 1, 1, 1) RETURNING id`,
      );
      await pool.query(
        `INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, tags, priority, created, updated, rev)
           VALUES ($1, 'before', 'ab', 'é', 'inbox', false, '{}', 0, 1, 1, 1)`,
        [rows[0]?.id],
      );
    } finally {
      await pool.end();
    }
    const store = storeOn(database);
    await store.migrate();
    const account = await store.findAccount('old');
    const id = account?.id ?? 0;
    const usage = () => store.write(id, (tx) => tx.usage());
    expect(await store.get(id, 'task', 'before')).toMatchObject({ title: 'ab', notes: 'é', icalExtras: '' });
    expect(await usage()).toEqual({ records: 1, bytes: 2 + 2 });
    await store.write(id, (tx) =>
      tx.put('task', taskDraft('before', { title: 'ab', notes: 'é', icalExtras: 'X-A:1\r\n' })),
    );
    expect(await usage()).toEqual({ records: 1, bytes: 2 + 2 + 7 });
  });
});

describe('change numbers', () => {
  it('are consecutive, in commit order, across two pools writing one account', async () => {
    const database = await freshDatabase();
    const first = storeOn(database);
    const second = storeOn(database);
    await first.migrate();
    const { id: accountId } = await first.createAccount({ username: 'shared', passwordHash: null, timezone: 'UTC' });

    const writesPerStore = 40;
    let written = 0;
    const writer = async (store: PostgresStore, name: string): Promise<(readonly Task[])[]> => {
      const results: (readonly Task[])[] = [];
      for (let index = 0; index < writesPerStore; index += 1) {
        const puts = 1 + (index % 3);
        results.push(
          await store.write(accountId, async (tx) => {
            const tasks: Task[] = [];
            for (let put = 0; put < puts; put += 1) {
              tasks.push(await tx.put('task', taskDraft(`${name}-${index}-${put}`)));
              // Give the other pool a chance to try (and wait) in the middle of a transaction.
              await sleep(put % 2);
            }
            return tasks;
          }),
        );
        written += puts;
      }
      return results;
    };

    // A syncing reader polls with its last head as the cursor meanwhile: every change must reach
    // it exactly once, which fails if a change commits with a rev below a head already seen.
    const seenRevs: number[] = [];
    let writersDone = false;
    const reader = async (): Promise<void> => {
      let cursor = 0;
      for (;;) {
        const finalRound = writersDone;
        const snapshot = await second.list(accountId, 'task', { includeDeleted: true, afterRev: cursor });
        const records = await readAll(snapshot);
        for (const record of records) expect(record.rev).toBeLessThanOrEqual(snapshot.headRev);
        seenRevs.push(...records.map((record) => record.rev));
        cursor = snapshot.headRev;
        if (finalRound) return;
        await sleep(1);
      }
    };
    const readerDone = reader();
    const results = await Promise.all([writer(first, 'a'), writer(second, 'b')]);
    writersDone = true;
    await readerDone;

    for (const transaction of results.flat()) {
      const revs = transaction.map((task) => task.rev);
      expect(revs).toEqual(revs.map((_, index) => (revs[0] ?? 0) + index));
    }
    const all = await readAll(await first.list(accountId, 'task', { includeDeleted: true }));
    expect(all.map((task) => task.rev)).toEqual(Array.from({ length: written }, (_, index) => index + 1));
    for (let index = 1; index < all.length; index += 1) {
      expect(all[index]?.updated).toBeGreaterThan(all[index - 1]?.updated ?? Number.POSITIVE_INFINITY);
    }
    expect(seenRevs).toEqual(all.map((task) => task.rev));
  });

  it('do not make writers of different accounts wait for each other, nor hold a lock while they work', async () => {
    const database = await freshDatabase();
    const first = storeOn(database);
    const second = storeOn(database);
    await first.migrate();
    const alice = await first.createAccount({ username: 'alice', passwordHash: null, timezone: 'UTC' });
    const bob = await first.createAccount({ username: 'bob', passwordHash: null, timezone: 'UTC' });

    const hold = gate();
    const events: string[] = [];
    const holding = first.write(alice.id, async (tx) => {
      const task = await tx.put('task', taskDraft('held'));
      events.push('alice writer works');
      await hold.opened;
      return task;
    });
    while (events.length === 0) await sleep(5);

    // A write is prepared without the account's lock and committed in one statement: neither
    // bob's writer nor alice's other writer waits for a writer that is still working.
    const other = await second.write(bob.id, (tx) => tx.put('task', taskDraft('independent')));
    events.push('bob committed');
    const meanwhile = await second.write(alice.id, (tx) => tx.put('task', taskDraft('meanwhile')));
    events.push('alice second writer committed');
    expect(other.rev).toBe(1);
    expect(meanwhile.rev).toBe(1);

    // The held writer's account moved under it: its work runs again and lands after, in order.
    hold.open();
    const held = await holding;
    expect(held.rev).toBe(2);
    expect(held.updated).toBeGreaterThan(meanwhile.updated);
    expect(events).toEqual([
      'alice writer works',
      'bob committed',
      'alice second writer committed',
      'alice writer works',
    ]);
    expect((await first.get(alice.id, 'task', 'held'))?.rev).toBe(2);
  });

  it('keep a busy account from taking every pooled connection', async () => {
    const database = await freshDatabase();
    const store = storeOn(database, 2);
    await store.migrate();
    const busy = await store.createAccount({ username: 'busy', passwordHash: null, timezone: 'UTC' });
    const quiet = await store.createAccount({ username: 'quiet', passwordHash: null, timezone: 'UTC' });

    const hold = gate();
    const queuedWrites = Array.from({ length: 10 }, (_, index) =>
      store.write(busy.id, async (tx) => {
        if (index === 0) await hold.opened;
        return tx.put('task', taskDraft(`busy-${index}`));
      }),
    );
    await sleep(20);
    // Ten writers of one account wait, yet another account still gets a connection at once.
    const written = await store.write(quiet.id, (tx) => tx.put('task', taskDraft('quiet')));
    expect(written.rev).toBe(1);
    expect(await store.get(quiet.id, 'task', 'quiet')).toEqual(written);
    hold.open();
    const revs = (await Promise.all(queuedWrites)).map((task) => task.rev);
    expect(revs).toEqual(Array.from({ length: 10 }, (_, index) => index + 1));
  });
});
