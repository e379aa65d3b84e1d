import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyMigrations, MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteOutboxReader } from '../../src/store/sqlite/outbox-reader.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import type { WriteTx } from '../../src/store/store.js';
import { readAll, storeSuite, taskDraft } from './suite.js';

/** A fresh folder for one test's database file, removed afterwards. */
async function tempDatabaseFile(): Promise<{ file: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'task-service-sqlite-'));
  return { file: path.join(dir, 'tasks.sqlite'), remove: () => rm(dir, { recursive: true, force: true }) };
}

storeSuite('sqlite', async (options) => {
  const { file, remove } = await tempDatabaseFile();
  const store = openSqliteStore({ file, ...options });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await remove();
    },
  };
});

describe('sqlite store specifics', () => {
  let file: string;
  let remove: () => Promise<void>;
  const opened: SqliteStore[] = [];

  /** Makes the test's file as a release of schema `version` left it, holding `rows` (SQL). */
  function fileAtVersion(version: number, rows: string): void {
    const old = new Database(file);
    try {
      applyMigrations(
        old,
        0,
        MIGRATIONS.filter((migration) => migration.version <= version),
      );
      old.exec(rows);
    } finally {
      old.close();
    }
  }

  function open(synchronous?: 'FULL' | 'NORMAL'): SqliteStore {
    const store = openSqliteStore(synchronous === undefined ? { file } : { file, synchronous });
    opened.push(store);
    return store;
  }

  beforeEach(async () => {
    ({ file, remove } = await tempDatabaseFile());
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await remove();
  });

  it('runs in WAL mode with durability FULL unless told otherwise, SQLite syncing at checkpoints only', async () => {
    const store = open();
    await store.migrate();
    expect(store.writeConnectionSettings()).toEqual({
      journalMode: 'wal',
      synchronous: 'NORMAL',
      foreignKeys: true,
      busyTimeoutMs: 5000,
      durability: 'FULL',
    });
    await store.close();
    // WAL is a property of the file: a connection that did not ask for it sees it too.
    const probe = new Database(file, { readonly: true });
    try {
      expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      probe.close();
    }
    expect(open('NORMAL').writeConnectionSettings()).toMatchObject({ synchronous: 'NORMAL', durability: 'NORMAL' });
  });

  it('enforces foreign keys: a token needs its account', async () => {
    const store = open();
    await store.migrate();
    await expect(
      store.insertToken({ hash: 'ff'.repeat(32), accountId: 404, scope: 'read', name: 'x', expiresAt: null }),
    ).rejects.toThrow(/FOREIGN KEY/);
  });

  it('applies migrations once, also across reopening', async () => {
    const first = open();
    await first.migrate();
    await first.migrate();
    await first.close();
    const second = open();
    await second.migrate();
    const probe = new Database(file, { readonly: true });
    try {
      const rows = probe.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all();
      expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((migration) => migration.version));
    } finally {
      probe.close();
    }
  });

  it('upgrades a version 5 file: its tasks keep no iCalendar properties, its bytes stay counted right', async () => {
    fileAtVersion(
      5,
      `
        INSERT INTO accounts (id, username, nickname, timezone, language, week_start, created, updated, rev, last_updated)
          VALUES (1, 'old', 'old', 'UTC', 'en', 1, 1, 1, 1, 1);
        INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, tags, priority, created, updated, rev)
          VALUES (1, 'before', 'ab', 'é', 'inbox', 0, '[]', 0, 1, 1, 1);`,
    );
    const store = open();
    await store.migrate();
    const usage = () => store.write(1, (tx) => tx.usage());
    expect(await store.get(1, 'task', 'before')).toMatchObject({ title: 'ab', notes: 'é', icalExtras: '' });
    expect(await usage()).toEqual({ records: 1, bytes: 2 + 2 });
    await store.write(1, (tx) =>
      tx.put('task', taskDraft('before', { title: 'ab', notes: 'é', icalExtras: 'X-A:1\r\n' })),
    );
    expect(await usage()).toEqual({ records: 1, bytes: 2 + 2 + 7 });
  });

  it('upgrades a version 11 file: what its outbox holds is still delivered, and then only what a hook wants is kept', async () => {
    fileAtVersion(
      11,
      `
        INSERT INTO accounts (id, username, nickname, timezone, language, week_start, created, updated, rev, last_updated)
          VALUES (1, 'old', 'old', 'UTC', 'en', 1, 1, 1, 1, 1);
        INSERT INTO webhooks (account_id, id, url, events, active, secret, created, updated, delivered_rev)
          VALUES (1, 'h', 'https://example.com/', '["project.changed"]', 1, 'whsec_x', 1, 1, 0);
        INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, tags, priority, created, updated, rev)
          VALUES (1, 'queued', 'before the upgrade', '', 'inbox', 0, '[]', 0, 1, 1, 1);`,
    );
    const store = open();
    await store.migrate();
    await store.write(1, (tx) => tx.put('task', taskDraft('after')));
    const events = await store.webhooks.events(1, 0, 10);
    expect(events.map((event) => [event.type, event.rev])).toEqual([['task.created', 1]]);
    expect(events[0]?.record).toMatchObject({ id: 'queued', title: 'before the upgrade' });
  });

  it('upgrades a version 12 file: its outbox rows keep their records; later ones name the row in its table', async () => {
    fileAtVersion(
      12,
      `
        INSERT INTO accounts (id, username, nickname, timezone, language, week_start, created, updated, rev, last_updated)
          VALUES (1, 'old', 'old', 'UTC', 'en', 1, 1, 1, 2, 2);
        INSERT INTO webhooks (account_id, id, url, events, active, secret, created, updated, delivered_rev)
          VALUES (1, 'h', 'https://example.com/', '["*"]', 1, 'whsec_x', 1, 1, 0);
        INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, tags, priority, created, updated, rev)
          VALUES (1, 'queued', 'as queued', '', 'inbox', 0, '[]', 0, 1, 1, 1);
        UPDATE tasks SET title = 'changed before the upgrade', updated = 2, rev = 2 WHERE id = 'queued';`,
    );
    const store = open();
    await store.migrate();
    const third = await store.write(1, (tx) => tx.put('task', taskDraft('queued', { title: 'after the upgrade' })));
    const probe = new Database(file, { readonly: true });
    try {
      const kept = probe.prepare<[], [number, number]>('SELECT rev, record IS NOT NULL FROM webhook_outbox').raw();
      expect(kept.all()).toEqual([
        [1, 1],
        [2, 1],
        [third.rev, 0],
      ]);
    } finally {
      probe.close();
    }
    await store.write(1, (tx) => tx.put('task', taskDraft('queued', { title: 'last' })));
    const events = await store.webhooks.events(1, 0, 10);
    expect(events.map((event) => [event.type, event.rev, 'title' in event.record && event.record.title])).toEqual([
      ['task.created', 1, 'as queued'],
      ['task.updated', 2, 'changed before the upgrade'],
      ['task.updated', third.rev, 'after the upgrade'],
      ['task.updated', third.rev + 1, 'last'],
    ]);
    expect(events[2]?.record).toEqual(third);
  });

  it('keeps the data of a file closed and reopened', async () => {
    const first = open();
    await first.migrate();
    const account = await first.createAccount({ username: 'keeper', passwordHash: 'h', timezone: 'UTC' });
    const task = await first.write(account.id, (tx) => tx.put('task', taskDraft('kept', { tags: ['a'] })));
    await first.close();

    const second = open();
    await second.migrate();
    expect(await second.findAccount('keeper')).toEqual(account);
    expect(await second.get(account.id, 'task', 'kept')).toEqual(task);
    const next = await second.write(account.id, (tx) => tx.put('task', taskDraft('next')));
    expect(next.rev).toBe(task.rev + 1);
    expect(next.updated).toBeGreaterThan(task.updated);
  });

  it('counts on from the file, not from memory, when another process writes too', async () => {
    const server = open();
    await server.migrate();
    // A second store on the same file stands for an admin command run beside the server.
    const admin = open();
    await admin.migrate();
    const account = await admin.createAccount({ username: 'shared', passwordHash: null, timezone: 'UTC' });
    expect(await server.findAccount('shared')).toEqual(account);
    const first = await server.write(account.id, (tx) => tx.put('task', taskDraft('a')));
    const second = await admin.write(account.id, (tx) => tx.put('task', taskDraft('b')));
    const third = await server.write(account.id, (tx) => tx.put('task', taskDraft('c')));
    expect([first.rev, second.rev, third.rev]).toEqual([1, 2, 3]);
    expect(second.updated).toBeGreaterThan(first.updated);
    expect(third.updated).toBeGreaterThan(second.updated);
    expect(await server.get(account.id, 'task', 'b')).toEqual(second);
  });

  it('reports the store unavailable when another process holds the write lock too long', async () => {
    const store = open();
    await store.migrate();
    const account = await store.createAccount({ username: 'waiter', passwordHash: null, timezone: 'UTC' });
    const other = new Database(file);
    try {
      other.exec('BEGIN IMMEDIATE');
      // Waits out the busy timeout (5 s), then gives up.
      await expect(store.write(account.id, (tx) => tx.put('task', taskDraft('x')))).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    expect((await store.write(account.id, (tx) => tx.put('task', taskDraft('x')))).rev).toBe(1);
  });

  it('finishes queued writes on close, then refuses work', async () => {
    const store = open();
    await store.migrate();
    const account = await store.createAccount({ username: 'closer', passwordHash: null, timezone: 'UTC' });
    const slow = store.write(account.id, async (tx) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return tx.put('task', taskDraft('slow'));
    });
    const queued = store.write(account.id, (tx) => tx.put('task', taskDraft('queued')));
    const closed = store.close();
    await expect(store.write(account.id, (tx) => tx.put('task', taskDraft('late')))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    expect((await slow).rev).toBe(1);
    expect((await queued).rev).toBe(2);
    await closed;
    await expect(store.get(account.id, 'task', 'slow')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);

    const reopened = open();
    expect((await reopened.get(account.id, 'task', 'queued'))?.rev).toBe(2);
  });

  it('ends a streaming listing when the store closes, without passing it off as complete', async () => {
    const store = open();
    await store.migrate();
    const account = await store.createAccount({ username: 'streamer', passwordHash: null, timezone: 'UTC' });
    await store.write(account.id, async (tx) => {
      for (let i = 0; i < 1200; i += 1) await tx.put('task', taskDraft(`t${i}`));
    });
    const snapshot = await store.list(account.id, 'task', { includeDeleted: false });
    expect((await snapshot.nextBatch())?.length).toBeGreaterThan(0);
    await store.close();
    await expect(snapshot.nextBatch()).rejects.toBeInstanceOf(StoreUnavailableError);
    await snapshot.close();
  });

  it('refuses a put through a transaction that has ended', async () => {
    const store = open();
    await store.migrate();
    const account = await store.createAccount({ username: 'leaker', passwordHash: null, timezone: 'UTC' });
    let leaked: WriteTx | undefined;
    await store.write(account.id, async (tx) => {
      leaked = tx;
    });
    await expect(leaked?.put('task', taskDraft('outside'))).rejects.toThrow(/ended/);
    expect(await store.get(account.id, 'task', 'outside')).toBeUndefined();
  });

  it('reads a large listing while writes go on, from one snapshot', async () => {
    const store = open();
    await store.migrate();
    const account = await store.createAccount({ username: 'reader', passwordHash: null, timezone: 'UTC' });
    await store.write(account.id, async (tx) => {
      for (let i = 0; i < 2500; i += 1) await tx.put('task', taskDraft(`t${i}`));
    });
    const snapshot = await store.list(account.id, 'task', { includeDeleted: true });
    // A commit between every two batches, changing a task not read yet: none may show.
    let commits = 0;
    const records = [];
    for (let batch = await snapshot.nextBatch(); batch !== null; batch = await snapshot.nextBatch()) {
      records.push(...batch);
      await store.write(account.id, (tx) => tx.put('task', taskDraft(`t${records.length}`, { title: 'moved' })));
      commits += 1;
    }
    await snapshot.close();
    expect(commits).toBeGreaterThan(1);
    expect(records.map((task) => task.rev)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    expect(records.every((task) => task.title !== 'moved')).toBe(true);
    const after = await readAll(await store.list(account.id, 'task', { includeDeleted: true, afterRev: 2500 }));
    expect(after.records).toHaveLength(commits);
  });

  it('reads the outbox over a connection of its own as the store does, each commit once made, never waiting for the writer', async () => {
    // The webhook sender's delivery thread reads it so (issue #24): off the write connection.
    const store = open();
    await store.migrate();
    const account = await store.createAccount({ username: 'hooked', passwordHash: null, timezone: 'UTC' });
    const hook = { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 };
    expect(await store.webhooks.insert(account.id, hook, 20)).not.toBe('full');
    const reader = openSqliteOutboxReader(file);
    try {
      const first = await store.write(account.id, (tx) => tx.put('task', taskDraft('t', { title: 'first' })));
      await store.write(account.id, (tx) => tx.put('task', taskDraft('t', { title: 'second' })));
      expect(reader.events(account.id, 0, 10)).toEqual(await store.webhooks.events(account.id, 0, 10));
      expect(reader.events(account.id, first.rev, 10).map((event) => event.type)).toEqual(['task.updated']);
      // A write under way (its transaction open, not committed) neither shows nor holds the reader up.
      let unheld: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (unheld = resolve));
      let inside: () => void = () => undefined;
      const entered = new Promise<void>((resolve) => (inside = resolve));
      const writing = store.write(account.id, async (tx) => {
        await tx.put('task', taskDraft('u', { title: 'third' }));
        inside();
        await held;
      });
      await entered;
      expect(reader.events(account.id, 0, 10)).toHaveLength(2);
      unheld();
      await writing;
      expect(
        reader.events(account.id, 0, 10).map((event) => ('title' in event.record ? event.record.title : '')),
      ).toEqual(['first', 'second', 'third']);
    } finally {
      reader.close();
    }
  });
});
