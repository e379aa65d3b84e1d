/**
 * The store's change feed (issue #24): each committed write is told with its account and kinds;
 * on PostgreSQL a commit of one process is heard by every other (LISTEN/NOTIFY on a connection
 * outside the pool), and after the listening connection is lost the feed listens again and tells
 * `resync`, so that listeners read again what they may have missed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChangeNote } from '../../src/store/change-feed.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { SYNC_KINDS } from '../../src/domain/sync.js';
import { projectDraft, taskDraft, TEXT_EVERYWHERE } from './suite.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Notes heard by a subscription, and a way to wait for the next that matches. */
function hear(store: Store): {
  readonly notes: ChangeNote[];
  next(match: (note: ChangeNote) => boolean): Promise<ChangeNote>;
} {
  const notes: ChangeNote[] = [];
  const waiting: { match: (note: ChangeNote) => boolean; resolve: (note: ChangeNote) => void }[] = [];
  const stop = store.changes.subscribe((note) => {
    notes.push(note);
    for (const waiter of waiting.splice(0)) {
      if (waiter.match(note)) waiter.resolve(note);
      else waiting.push(waiter);
    }
  });
  cleanups.push(async () => stop());
  return {
    notes,
    next: (match) => new Promise((resolve) => waiting.push({ match, resolve })),
  };
}

async function sqliteStore(): Promise<Store> {
  const dir = await mkdtemp(path.join(tmpdir(), 'change-feed-'));
  const store = openSqliteStore({ file: path.join(dir, 'store.db') });
  cleanups.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  await store.migrate();
  return store;
}

async function postgresDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return database;
}

async function postgresStore(database: TestDatabase): Promise<PostgresStore> {
  const store = openPostgresStore({ url: database.url });
  cleanups.push(() => store.close());
  await store.migrate();
  return store;
}

const ENGINES = {
  sqlite: sqliteStore,
  postgres: async () => postgresStore(await postgresDatabase()),
} as const;

describe.each(['sqlite', 'postgres'] as const)('the change feed on %s', (engine) => {
  it('tells each committed write with its account and the kinds it put, and nothing for a failed one', async () => {
    const store = await ENGINES[engine]();
    const account = await store.createAccount({ username: 'feed', passwordHash: null, timezone: 'UTC' });
    const heard = hear(store);
    await store.write(account.id, async (tx) => {
      await tx.put('task', taskDraft('t1'));
      await tx.put('project', projectDraft('p1'));
    });
    await expect(
      store.write(account.id, async (tx) => {
        await tx.put('task', taskDraft('t2'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await store.write(account.id, async (tx) => tx.get('task', 't1'));
    const changed = heard.notes.filter((note) => note.type === 'changed');
    expect(changed.length).toBeGreaterThan(0);
    for (const note of changed) expect(note).toMatchObject({ accountId: account.id });
    const kinds = new Set(changed.flatMap((note) => (note.type === 'changed' ? note.kinds : [])));
    expect([...kinds].sort()).toEqual(['project', 'task']);
    if (engine === 'sqlite')
      expect(changed).toEqual([{ type: 'changed', accountId: account.id, kinds: ['task', 'project'] }]);
  });
});

describe.each(['sqlite', 'postgres'] as const)('outbox notes on %s', (engine) => {
  it("tells outbox after a commit of every kind of an account with an active hook, and never for others'", async () => {
    // The sender looks at the outbox only after these (a look costs the store a read): a commit
    // whose delivery went untold would wait for the account's next one.
    const store = await ENGINES[engine]();
    const hooked = await store.createAccount({ username: 'hooked', passwordHash: null, timezone: 'UTC' });
    const plain = await store.createAccount({ username: 'plain', passwordHash: null, timezone: 'UTC' });
    const hook = { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 };
    expect(await store.webhooks.insert(hooked.id, hook, 20)).not.toBe('full');
    expect(store.changes.tellsOutbox).toBe(true);
    const heard = hear(store);
    if (engine === 'postgres') await heard.next((note) => note.type === 'resync');
    for (const kind of SYNC_KINDS) {
      await store.write(plain.id, async (tx) => tx.put(kind, TEXT_EVERYWHERE[kind](`plain-${kind}`)));
      const told = heard.next((note) => note.type === 'outbox');
      await store.write(hooked.id, async (tx) => tx.put(kind, TEXT_EVERYWHERE[kind](`hooked-${kind}`)));
      expect(await told).toEqual({ type: 'outbox', accountId: hooked.id });
    }
    expect(heard.notes.filter((note) => note.type === 'outbox' && note.accountId === plain.id)).toEqual([]);
  });

  it('tells outbox from the first commit after a hook is added or turned on, and not after it is turned off or removed', async () => {
    const store = await ENGINES[engine]();
    const account = await store.createAccount({ username: 'later', passwordHash: null, timezone: 'UTC' });
    // Another hooked account's note marks where the notes of each step end (PostgreSQL tells in commit order).
    const marker = await store.createAccount({ username: 'marker', passwordHash: null, timezone: 'UTC' });
    const hook = { url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 };
    expect(await store.webhooks.insert(marker.id, { ...hook, id: 'm' }, 20)).not.toBe('full');
    const heard = hear(store);
    if (engine === 'postgres') await heard.next((note) => note.type === 'resync');
    let step = 0;
    /** Whether a task written for the account now is told as outbox. */
    const told = async (): Promise<boolean> => {
      step += 1;
      const from = heard.notes.length;
      await store.write(account.id, async (tx) => tx.put('task', taskDraft(`step-${step}`)));
      const marked = heard.next((note) => note.type === 'outbox' && note.accountId === marker.id);
      await store.write(marker.id, async (tx) => tx.put('task', taskDraft(`marker-${step}`)));
      await marked;
      return heard.notes.slice(from).some((note) => note.type === 'outbox' && note.accountId === account.id);
    };
    expect(await told()).toBe(false);
    expect(await told()).toBe(false);
    expect(await store.webhooks.insert(account.id, { ...hook, id: 'h' }, 20)).not.toBe('full');
    expect(await told()).toBe(true);
    await store.webhooks.update(account.id, 'h', { active: false, updated: 2 });
    expect(await told()).toBe(false);
    await store.webhooks.update(account.id, 'h', { active: true, updated: 3 });
    expect(await told()).toBe(true);
    expect(await store.webhooks.remove(account.id, 'h')).toBe(true);
    expect(await told()).toBe(false);
  });
});

describe('the change feed across PostgreSQL processes', () => {
  it("hears another process's commit, and listens again after its connection is cut, telling resync", async () => {
    const database = await postgresDatabase();
    const a = await postgresStore(database);
    const b = await postgresStore(database);
    const account = await b.createAccount({ username: 'two', passwordHash: null, timezone: 'UTC' });
    const heard = hear(a);
    await heard.next((note) => note.type === 'resync');
    expect(a.hearsOthers).toBe(true);

    const fromB = heard.next((note) => note.type === 'changed');
    await b.write(account.id, async (tx) => tx.put('task', taskDraft('from-b')));
    expect(await fromB).toEqual({ type: 'changed', accountId: account.id, kinds: ['task'] });

    // A restart of the database, as far as the listening connection can tell.
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const resync = heard.next((note) => note.type === 'resync');
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'task-service change feed' AND datname = current_database()",
      );
      await resync;
    } finally {
      await admin.end();
    }
    const again = heard.next((note) => note.type === 'changed');
    await b.write(account.id, async (tx) => tx.put('project', projectDraft('after-cut')));
    expect(await again).toEqual({ type: 'changed', accountId: account.id, kinds: ['project'] });
  });

  it("hears another process's commit of every kind", async () => {
    // Each kind's table has a NOTIFY trigger of its own (the migrations): a kind without one
    // would wake no waiter and no sender in the other processes.
    const database = await postgresDatabase();
    const a = await postgresStore(database);
    const b = await postgresStore(database);
    const account = await b.createAccount({ username: 'kinds', passwordHash: null, timezone: 'UTC' });
    const heard = hear(a);
    await heard.next((note) => note.type === 'resync');
    for (const kind of SYNC_KINDS) {
      const told = heard.next((note) => note.type === 'changed' && note.kinds.includes(kind));
      await b.write(account.id, async (tx) => tx.put(kind, TEXT_EVERYWHERE[kind]('x')));
      expect(await told).toEqual({ type: 'changed', accountId: account.id, kinds: [kind] });
    }
  });

  it('opens no listening connection for a store nobody subscribes to', async () => {
    const database = await postgresDatabase();
    await postgresStore(database);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const listening = await admin.query(
        "SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = 'task-service change feed' AND datname = current_database()",
      );
      expect(listening.rows[0]).toEqual({ count: 0 });
    } finally {
      await admin.end();
    }
  });
});
