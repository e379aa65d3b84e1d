/**
 * Durability FULL on SQLite: the WAL is synced off the event loop after each commit, and nothing
 * is answered before its sync. The sync runs on libuv's thread pool; these tests hold every
 * thread of the pool in a real blocking call (opening a FIFO that has no writer yet) to show
 * what waits for it, then let the pool go.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { mkdtemp, open, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SynchronousMode } from '../../src/store/sqlite/connection.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { WalSync } from '../../src/store/sqlite/wal-sync.js';
import { taskDraft } from './suite.js';

const THREAD_POOL_SIZE = Number(process.env['UV_THREADPOOL_SIZE'] ?? '') || 4;
const BUILT_STORE = path.resolve('dist/src/store/sqlite/store.js');

/**
 * Every thread of libuv's pool blocked in open(2) of a FIFO until `release` (which may be called
 * again: the test's `finally` releases the pool also when an expectation failed).
 */
function holdThreadPool(dir: string): { release: () => Promise<void> } {
  const fifos = Array.from({ length: THREAD_POOL_SIZE }, (_, index) => path.join(dir, `hold-${index}`));
  execFileSync('mkfifo', fifos);
  const readers: Promise<FileHandle>[] = fifos.map((fifo) => open(fifo, 'r'));
  let released: Promise<void> | undefined;
  return {
    release: () => {
      released ??= (async () => {
        for (const fifo of fifos) closeSync(await openWriter(fifo));
        for (const reader of await Promise.all(readers)) await reader.close();
      })();
      return released;
    },
  };
}

/** Opens a FIFO's writing end once its reader is there (without blocking the event loop). */
async function openWriter(fifo: string): Promise<number> {
  for (;;) {
    try {
      return openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENXIO')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Tracks whether a promise has settled yet. */
function watch<T>(promise: Promise<T>): { settled: () => boolean; promise: Promise<T> } {
  let settled = false;
  const watched = promise.finally(() => {
    settled = true;
  });
  return { settled: () => settled, promise: watched };
}

/** Waits until another connection sees the task, i.e. until its transaction has committed. */
async function committed(observer: Database.Database, id: string): Promise<void> {
  const find = observer.prepare('SELECT 1 FROM tasks WHERE id = ?');
  for (let attempt = 0; attempt < 2000; attempt += 1) {
    if (find.get(id) !== undefined) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`task ${id} was never committed`);
}

describe('sqlite durability FULL: the WAL synced after each commit, off the event loop', () => {
  let dir: string;
  let file: string;
  const opened: SqliteStore[] = [];

  async function openStore(synchronous: SynchronousMode): Promise<{ store: SqliteStore; accountId: number }> {
    const store = openSqliteStore({ file, synchronous });
    opened.push(store);
    await store.migrate();
    const account = await store.createAccount({ username: 'durable', passwordHash: null, timezone: 'UTC' });
    return { store, accountId: account.id };
  }

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-wal-sync-'));
    file = path.join(dir, 'tasks.sqlite');
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close().catch(() => undefined)));
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a group only after its sync, while the next group already commits', async () => {
    const { store, accountId } = await openStore('FULL');
    const observer = new Database(file, { readonly: true });
    const pool = holdThreadPool(dir);
    try {
      const first = watch(store.write(accountId, async (tx) => (await tx.put('task', taskDraft('first'))).rev));
      await committed(observer, 'first');
      const second = watch(store.write(accountId, async (tx) => (await tx.put('task', taskDraft('second'))).rev));
      await committed(observer, 'second');
      // Committed, visible to another connection, but not yet on disk: not answered, and not
      // shown to a read either.
      const read = watch(store.get(accountId, 'task', 'first'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect([first.settled(), second.settled(), read.settled()]).toEqual([false, false, false]);

      await pool.release();
      expect(await first.promise).toBe(1);
      expect(await second.promise).toBe(2);
      expect((await read.promise)?.rev).toBe(1);
    } finally {
      observer.close();
      await pool.release();
    }
  });

  it('with durability NORMAL answers at COMMIT, not waiting for the thread pool', async () => {
    const { store, accountId } = await openStore('NORMAL');
    const pool = holdThreadPool(dir);
    try {
      const rev = await store.write(accountId, async (tx) => (await tx.put('task', taskDraft('quick'))).rev);
      expect(rev).toBe(1);
      expect((await store.get(accountId, 'task', 'quick'))?.rev).toBe(1);
    } finally {
      await pool.release();
    }
  });

  it('syncs the writes made outside a group too (accounts, tokens) before answering them', async () => {
    const { store } = await openStore('FULL');
    const pool = holdThreadPool(dir);
    const made = watch(store.createAccount({ username: 'second', passwordHash: null, timezone: 'UTC' }));
    const observer = new Database(file, { readonly: true });
    try {
      for (let attempt = 0; observer.prepare("SELECT 1 FROM accounts WHERE username = 'second'").get() === undefined;) {
        attempt += 1;
        if (attempt > 2000) throw new Error('the account was never committed');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(made.settled()).toBe(false);
    } finally {
      observer.close();
      await pool.release();
    }
    expect((await made.promise).username).toBe('second');
  });

  it('fails every later sync once one failed, which also fails the readiness check', async () => {
    // A WAL that cannot be opened (no such folder): a real failing sync, no storage mocked.
    const sync = new WalSync(path.join(dir, 'missing', 'tasks.sqlite'));
    await expect(sync.afterCommit()).rejects.toThrow(/syncing .*-wal failed/);
    await expect(sync.afterCommit()).rejects.toThrow(/syncing .*-wal failed/);
    // What the store's ping and its reads wait for: refused too, though nothing new is to sync.
    await expect(sync.covered(0)).rejects.toThrow(/syncing .*-wal failed/);
    await sync.close();
  });

  it('keeps every answered write when the process is killed with SIGKILL right after answers', async () => {
    expect(existsSync(BUILT_STORE), 'run "npm run build" first').toBe(true);
    const script = path.join(dir, 'writer.mjs');
    await writeFile(script, writerScript(file));
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const answered: string[] = [];
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    let partial = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      answered.push(...lines);
      // Killed as soon as enough writes were answered, while the next groups are under way.
      if (answered.length >= 400) child.kill('SIGKILL');
    });
    const signal = await exited;
    expect(signal, stderr).toBe('SIGKILL');
    expect(answered.length).toBeGreaterThanOrEqual(400);

    const db = new Database(file, { fileMustExist: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const find = db.prepare('SELECT 1 FROM tasks WHERE id = ?');
      expect(answered.filter((id) => find.get(id) === undefined)).toEqual([]);
    } finally {
      db.close();
    }
  });
});

/** A process writing tasks in concurrent bursts through the built store, printing each answered id. */
function writerScript(file: string): string {
  const draft = JSON.stringify(taskDraft('x'));
  return `
import { openSqliteStore } from ${JSON.stringify(pathToFileURL(BUILT_STORE).href)};
const store = openSqliteStore({ file: ${JSON.stringify(file)} });
await store.migrate();
const account = await store.createAccount({ username: 'killed', passwordHash: null, timezone: 'UTC' });
let serial = 0;
for (;;) {
  await Promise.all(Array.from({ length: 16 }, () => {
    const id = 'k' + (serial += 1);
    return store
      .write(account.id, (tx) => tx.put('task', { ...${draft}, id, title: id }))
      .then(() => process.stdout.write(id + '\\n'));
  }));
}
`;
}
