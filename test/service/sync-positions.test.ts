import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import type { ReturnedPosition } from '../../src/domain/sync.js';
import type { Micros } from '../../src/domain/time.js';
import { ListingService, type ListRequest } from '../../src/service/listing.js';
import { sqliteBackups } from '../../src/store/sqlite/backups.js';
import { applyMigrations, MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { taskDraft } from '../store/suite.js';

/*
 * Issue 21 item 5, on the rules of ListingService over a real SQLite store and a real restore:
 * a position from before a restore, or from another store, answers E008 (cursor_expired); one
 * handed out after it never does. PostgreSQL's restore is pg_restore: test/e2e/postgres-moves.
 */

const SECOND = 1_000_000;

let dir: string;
let live: string;
let time: Micros;
const clock = (): Micros => time;
const opened: SqliteStore[] = [];

function open(file = live): SqliteStore {
  const store = openSqliteStore({ file, clock });
  opened.push(store);
  return store;
}

async function closeAll(): Promise<void> {
  await Promise.all(opened.splice(0).map((store) => store.close()));
}

/** The ids listed, or `expired` when the position is refused. */
async function ids(store: SqliteStore, accountId: number, request: ListRequest): Promise<string[] | 'expired'> {
  try {
    const listing = await new ListingService(store).open(accountId, 'task', request);
    const ids: string[] = [];
    for await (const batch of listing.batches()) ids.push(...batch.map((task) => task.id));
    await listing.close();
    return ids;
  } catch (error) {
    if (error instanceof DomainError && error.problem.kind === 'cursor_expired') return 'expired';
    throw error;
  }
}

/** A listing's cursor and records: `limit` cuts it. */
async function page(store: SqliteStore, accountId: number, request: ListRequest) {
  const listing = await new ListingService(store).open(accountId, 'task', request);
  const records = [];
  for await (const batch of listing.batches()) records.push(...batch);
  await listing.close();
  return { cursor: listing.cursor, records };
}

async function writeTasks(store: SqliteStore, accountId: number, prefix: string, count: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    time += SECOND;
    await store.write(accountId, (tx) => tx.put('task', taskDraft(`${prefix}${index}`)));
  }
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'positions-'));
  live = path.join(dir, 'tasks.sqlite');
  time = 1_700_000_000 * SECOND;
});

afterEach(async () => {
  await closeAll();
  await rm(dir, { recursive: true, force: true });
});

describe('sync positions across a restore (SQLite)', () => {
  it('continues page 2 of a fresh listing after restoring an identical backup, and expires cursors from before', async () => {
    let store = open();
    await store.migrate();
    const { id } = await store.createAccount({ username: 'a', passwordHash: null, timezone: 'UTC' });
    await writeTasks(store, id, 't', 25);
    const before = await page(store, id, {});
    const backup = path.join(dir, 'backup.sqlite');
    await sqliteBackups(live).backup(backup, () => undefined);
    await closeAll();

    time += SECOND;
    sqliteBackups(live).restore(backup, time);
    store = open();
    const first = await page(store, id, { limit: 10 });
    expect(first.records.map((task) => task.id)).toEqual(Array.from({ length: 10 }, (_, index) => `t${index}`));
    expect(first.cursor.epoch).not.toBe(before.cursor.epoch);
    expect(await ids(store, id, { after: first.cursor, limit: 10 })).toEqual(
      Array.from({ length: 10 }, (_, index) => `t${index + 10}`),
    );
    // The same change number, handed out before the restore: another life of the store.
    expect(await ids(store, id, { after: before.cursor })).toBe('expired');
    expect(await ids(store, id, { after: { ...first.cursor, epoch: before.cursor.epoch } })).toBe('expired');
    // A date taken from the restored records is answered; one the restore lost is not.
    const newest = first.records[0]?.updated ?? 0;
    expect(await ids(store, id, { updatedAfter: newest + 23 * SECOND })).toEqual(['t24']);
    expect(await ids(store, id, { updatedAfter: time - SECOND / 2 })).toBe('expired');
    // After the restore, new writes and every position handed out continue exactly.
    const everything = await page(store, id, {});
    await writeTasks(store, id, 'new', 1);
    expect(await ids(store, id, { after: everything.cursor })).toEqual(['new0']);
    expect(await ids(store, id, { updatedAfter: time - SECOND / 2 })).toEqual(['new0']);
  });

  it('expires on a new machine a cursor and a date of the old store that are ahead of the backup', async () => {
    const store = open();
    await store.migrate();
    const { id } = await store.createAccount({ username: 'a', passwordHash: null, timezone: 'UTC' });
    await writeTasks(store, id, 'kept', 5);
    const backup = path.join(dir, 'backup.sqlite');
    await sqliteBackups(live).backup(backup, () => undefined);
    await writeTasks(store, id, 'lost', 5);
    const ahead = await page(store, id, {});
    const aheadDate = ahead.records.at(-1)?.updated ?? 0;

    time += SECOND;
    const elsewhere = path.join(dir, 'new-machine', 'tasks.sqlite');
    sqliteBackups(elsewhere).restore(backup, time);
    const restored = open(elsewhere);
    expect(await ids(restored, id, { after: ahead.cursor })).toBe('expired');
    expect(await ids(restored, id, { updatedAfter: aheadDate })).toBe('expired');
    expect(await ids(restored, id, { after: { ...ahead.cursor, epoch: (await restored.identity()).epoch } })).toBe(
      'expired',
    );
    expect(await ids(restored, id, {})).toEqual(['kept0', 'kept1', 'kept2', 'kept3', 'kept4']);
    // Two stores never share an epoch.
    expect((await restored.identity()).epoch).not.toBe((await store.identity()).epoch);
  });

  it('keeps cursors handed out before epochs (c1.) good on an upgraded store until its first restore', async () => {
    const old = new Database(live);
    applyMigrations(
      old,
      time,
      MIGRATIONS.filter((migration) => migration.version <= 7),
    );
    // An account made before epochs: its clients may hold c1. cursors.
    old.exec(`INSERT INTO accounts (id, username, nickname, timezone, language, week_start, created, updated)
      VALUES (1, 'a', 'a', 'UTC', 'en', 1, 1, 1)`);
    old.close();
    let store = open();
    await store.migrate();
    expect(await store.identity()).toMatchObject({ legacyPositions: true });
    const id = 1;
    await writeTasks(store, id, 't', 3);
    const legacy: ReturnedPosition = { epoch: null, rev: 1, purgedRev: 0 };
    expect(await ids(store, id, { after: legacy })).toEqual(['t1', 't2']);
    const backup = path.join(dir, 'backup.sqlite');
    await sqliteBackups(live).backup(backup, () => undefined);
    await closeAll();
    time += SECOND;
    sqliteBackups(live).restore(backup, time);
    store = open();
    expect(await ids(store, id, { after: legacy })).toBe('expired');
  });

  it('continues page 2 of a listing made after a purge, and expires a cursor from before it', async () => {
    const store = open();
    await store.migrate();
    const { id } = await store.createAccount({ username: 'a', passwordHash: null, timezone: 'UTC' });
    await writeTasks(store, id, 't', 25);
    const early = await page(store, id, { limit: 5 });
    time += SECOND;
    await store.write(id, (tx) => tx.put('task', taskDraft('t20', { deleted: time })));
    const everything = await page(store, id, {});
    time += SECOND;
    expect(await store.purge(time)).toBe(1);

    const first = await page(store, id, { limit: 10 });
    expect(first.cursor.rev).toBeLessThan(everything.cursor.rev);
    expect(await ids(store, id, { after: first.cursor, limit: 10 })).toEqual([
      't10',
      't11',
      't12',
      't13',
      't14',
      't15',
      't16',
      't17',
      't18',
      't19',
    ]);
    // Handed out before the purge, before the purged deletion: it would never learn of it.
    expect(await ids(store, id, { after: early.cursor })).toBe('expired');
    // Handed out before the purge, after the deletion: it lost nothing.
    expect(await ids(store, id, { after: everything.cursor })).toEqual([]);
  });

  it('refuses a cursor without an epoch on a store made after epochs, and one past the head', async () => {
    const store = open();
    await store.migrate();
    expect(await store.identity()).toMatchObject({ legacyPositions: false });
    const { id } = await store.createAccount({ username: 'a', passwordHash: null, timezone: 'UTC' });
    await writeTasks(store, id, 't', 2);
    expect(await ids(store, id, { after: { epoch: null, rev: 1, purgedRev: 0 } })).toBe('expired');
    // Before every change, a position names none: it is good in any store.
    expect(await ids(store, id, { after: { epoch: null, rev: 0, purgedRev: 0 } })).toEqual(['t0', 't1']);
    expect(await ids(store, id, { after: { epoch: 'another', rev: 0, purgedRev: 0 } })).toEqual(['t0', 't1']);
    const { epoch } = await store.identity();
    expect(await ids(store, id, { after: { epoch, rev: 1, purgedRev: 0 } })).toEqual(['t1']);
    expect(await ids(store, id, { after: { epoch, rev: 3, purgedRev: 0 } })).toBe('expired');
  });
});
