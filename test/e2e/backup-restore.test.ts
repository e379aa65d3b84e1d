import Database from 'better-sqlite3';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/store/open.js';
import { newAccount, storeFlags, type StoreArgs } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, expectError, taskArraySchema, taskListSchema, taskSchema } from './support/wire.js';

/** The titles of the tasks in a backup file, read with SQLite itself. */
function titlesIn(file: string): Set<string> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    return new Set(db.prepare<[], string>('SELECT title FROM tasks WHERE deleted IS NULL').pluck().all());
  } finally {
    db.close();
  }
}

describe('backup while serve answers writes, and restore', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, () => {
  let store: StoreArgs;
  let server: ServeProcess;
  let token: string;
  let backupDir: string;
  const backupFile = (): string => path.join(backupDir, 'tasks-backup.sqlite');
  /** Titles of the writes answered before the backup command was started. */
  let answeredBeforeBackup: readonly string[] = [];
  /** The cursor of a client that synced after the backup was taken: ahead of the backup. */
  let lateCursor = '';

  beforeAll(async () => {
    store = { dataDir: await makeTempDir('backup') };
    backupDir = await makeTempDir('backup-files');
    token = await newAccount(store, 'keeper');
    server = await startServe({ dataDir: store.dataDir, http: true });
    // Enough data that the copy takes many steps (the stepped copy is restarted by writes).
    for (let batch = 0; batch < 8; batch += 1) {
      const body = Array.from({ length: 1000 }, (_, index) => ({
        title: `seed ${batch}-${index}`,
        notes: 'n'.repeat(200),
      }));
      bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body }), taskArraySchema);
    }
  });

  afterAll(async () => {
    await cleanUpProcesses();
  });

  const list = (query = '') =>
    request(server.origin, { path: `/v1/tasks${query}`, headers: oauth(token), timeoutMs: 30_000 });

  it('has every write answered before the backup began, while writes go on being answered', async () => {
    const answered: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let index = 0; writing; index += 1) {
        const title = `live ${index}`;
        bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: { title } }), taskSchema);
        answered.push(title);
      }
    })();
    while (answered.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));

    answeredBeforeBackup = [...answered];
    const backup = await runCli(['backup', backupFile(), ...storeFlags(store)], { timeoutMs: 60_000 });
    const answeredDuringBackup = answered.length - answeredBeforeBackup.length;
    writing = false;
    await writer;

    expect(backup.code, backup.stderr).toBe(0);
    expect(backup.stderr).toContain(backupFile());
    // Not a terminal here: no progress bar, only the summary line.
    expect(backup.stderr).not.toContain('\r');
    // The server kept answering writes while the backup ran (the command alone takes a node start).
    expect(answeredDuringBackup).toBeGreaterThan(0);

    const inBackup = titlesIn(backupFile());
    expect(answeredBeforeBackup.filter((title) => !inBackup.has(title))).toEqual([]);
    expect(inBackup.has('seed 7-999')).toBe(true);
    // Nothing is left beside the backup: it is one file.
    expect(readdirSync(backupDir)).toEqual(['tasks-backup.sqlite']);
  });

  it('refuses to overwrite a file', async () => {
    const again = await runCli(['backup', backupFile(), ...storeFlags(store)]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('exists');
  });

  it('refuses to restore while serve runs on the data folder, and changes nothing', async () => {
    const before = bodyOf(await list(), taskListSchema).entries.length;
    const refused = await runCli(['restore', backupFile(), ...storeFlags(store)]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/in use.*stop serve/);
    expect(bodyOf(await list(), taskListSchema).entries.length).toBe(before);
    expect(
      readdirSync(store.dataDir).filter((name) => name.includes('replaced') || name.includes('restoring')),
    ).toEqual([]);
  });

  it('refuses a damaged file and a backup of a newer schema before touching the store', async () => {
    await server.stop();
    const garbage = path.join(backupDir, 'garbage.sqlite');
    writeFileSync(garbage, 'this is not a database at all '.repeat(200));
    const notDatabase = await runCli(['restore', garbage, ...storeFlags(store)]);
    expect(notDatabase.code).toBe(2);
    expect(notDatabase.stderr).toContain('not an SQLite database');

    const newer = path.join(backupDir, 'newer.sqlite');
    copyFileSync(backupFile(), newer);
    const db = new Database(newer);
    db.prepare("INSERT INTO schema_migrations (version, name, applied) VALUES (999, 'from the future', 0)").run();
    db.close();
    const tooNew = await runCli(['restore', newer, ...storeFlags(store)]);
    expect(tooNew.code).toBe(2);
    expect(tooNew.stderr).toContain('schema version 999');

    expect(readdirSync(store.dataDir).filter((name) => name.startsWith(SQLITE_FILE_NAME + '.'))).toEqual([]);
  });

  it('restores, keeps the replaced store, and answers E008 to every cursor from before', async () => {
    server = await startServe({ dataDir: store.dataDir, http: true });
    const before = bodyOf(await list(), taskListSchema);
    // A client that synced after the backup was taken: its cursor is past the backup's head.
    lateCursor = before.cursor;
    const liveCount = before.entries.length;
    await server.stop();

    const restored = await runCli(['restore', backupFile(), ...storeFlags(store)]);
    expect(restored.code, restored.stderr).toBe(0);
    const kept = readdirSync(store.dataDir).filter((name) => name.startsWith(`${SQLITE_FILE_NAME}.replaced-`));
    expect(kept).toHaveLength(1);
    // The replaced store is kept whole: everything the server had, in one file.
    expect(titlesIn(path.join(store.dataDir, kept[0] ?? '')).size).toBe(liveCount);

    server = await startServe({ dataDir: store.dataDir, http: true });
    expectError(await list(`?cursor=${encodeURIComponent(lateCursor)}`), 400, 'E008');
    expect(existsSync(path.join(store.dataDir, SQLITE_FILE_NAME))).toBe(true);

    // Listing again gives exactly the backup, and a cursor that works from then on.
    const fresh = bodyOf(await list(), taskListSchema);
    expect(new Set(fresh.entries.map((task) => task.title))).toEqual(titlesIn(backupFile()));
    expect(fresh.entries.length).toBeLessThan(liveCount);
    expect(fresh.entries.length).toBeGreaterThanOrEqual(8000 + answeredBeforeBackup.length);
    bodyOf(
      await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: { title: 'after' } }),
      taskSchema,
    );
    const since = bodyOf(await list(`?cursor=${encodeURIComponent(fresh.cursor)}`), taskListSchema);
    expect(since.entries.map((task) => task.title)).toEqual(['after']);
    // Paging through a listing made after the restore: page 2 continues.
    const first = bodyOf(await list('?limit=10'), taskListSchema);
    const second = bodyOf(await list(`?cursor=${encodeURIComponent(first.cursor)}&limit=10`), taskListSchema);
    expect(second.entries.map((task) => task.id)).toEqual(fresh.entries.slice(10, 20).map((task) => task.id));
  });

  it('restores onto a new machine: a data folder that does not exist yet; a cursor of the old server ahead of the backup answers E008', async () => {
    await server.stop();
    const elsewhere = path.join(await makeTempDir('restore-new'), 'data');
    const restored = await runCli(['restore', backupFile(), '--data-dir', elsewhere]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).not.toContain('replaced store is kept');
    expect(titlesIn(path.join(elsewhere, SQLITE_FILE_NAME))).toEqual(titlesIn(backupFile()));
    server = await startServe({ dataDir: elsewhere, http: true });
    expectError(await list(`?cursor=${encodeURIComponent(lateCursor)}`), 400, 'E008');
    await server.stop();
  });

  it('restores an identical backup: cursors from before answer E008 (also as a CalDAV sync token), new ones page on', async () => {
    const folder: StoreArgs = { dataDir: await makeTempDir('restore-same') };
    const owner = await newAccount(folder, 'same');
    server = await startServe({ dataDir: folder.dataDir, http: true });
    const body = Array.from({ length: 25 }, (_, index) => ({
      id: `s${String(index).padStart(2, '0')}`,
      title: `s${index}`,
    }));
    bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(owner), body }), taskArraySchema);
    const listOwn = (query = '') =>
      request(server.origin, { path: `/v1/tasks${query}`, headers: oauth(owner), timeoutMs: 30_000 });
    const syncReport = (token: string) =>
      request(server.origin, {
        method: 'REPORT',
        path: '/dav/calendars/same/inbox/',
        headers: { ...oauth(owner), 'content-type': 'application/xml', depth: '1' },
        body: `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${token}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`,
      });
    const before = bodyOf(await listOwn(), taskListSchema);
    const davBefore = await syncReport('');
    expect(davBefore.status, davBefore.text).toBe(207);
    const tokenBefore = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(davBefore.text)?.[1] ?? '';
    expect(tokenBefore).toMatch(/^http:/);
    const backup = path.join(backupDir, 'same.sqlite');
    const made = await runCli(['backup', backup, ...storeFlags(folder)]);
    expect(made.code, made.stderr).toBe(0);
    await server.stop();
    const restored = await runCli(['restore', backup, ...storeFlags(folder)]);
    expect(restored.code, restored.stderr).toBe(0);

    server = await startServe({ dataDir: folder.dataDir, http: true });
    const first = bodyOf(await listOwn('?limit=10'), taskListSchema);
    const second = await listOwn(`?cursor=${encodeURIComponent(first.cursor)}&limit=10`);
    expect(second.status, second.text).toBe(200);
    expect(bodyOf(second, taskListSchema).entries.map((task) => task.id)).toEqual(
      before.entries.slice(10, 20).map((task) => task.id),
    );
    expectError(await listOwn(`?cursor=${encodeURIComponent(before.cursor)}`), 400, 'E008');
    // A date the client takes from the restored records is answered (not E008).
    const last = before.entries.at(-1)?.updated ?? '';
    const sinceLast = await listOwn(`?updated_after=${encodeURIComponent(last)}`);
    expect(sinceLast.status, sinceLast.text).toBe(200);
    const refused = await syncReport(tokenBefore);
    expect(refused.status, refused.text).toBe(403);
    expect(refused.text).toContain('valid-sync-token');
    const davAfter = await syncReport('');
    const tokenAfter = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(davAfter.text)?.[1] ?? '';
    expect((await syncReport(tokenAfter)).status).toBe(207);
    await server.stop();
  });

  it('restores over a damaged store, keeping it, and moves change numbers on by a billion', async () => {
    const damaged = await makeTempDir('restore-damaged');
    const garbage = 'no database here '.repeat(1000);
    writeFileSync(path.join(damaged, SQLITE_FILE_NAME), garbage);
    const restored = await runCli(['restore', backupFile(), '--data-dir', damaged]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stderr).toContain('could not be read');
    const kept = readdirSync(damaged).filter((name) => name.startsWith(`${SQLITE_FILE_NAME}.replaced-`));
    expect(kept).toHaveLength(1);
    expect(readFileSync(path.join(damaged, kept[0] ?? ''), 'utf8')).toBe(garbage);
    const db = new Database(path.join(damaged, SQLITE_FILE_NAME), { readonly: true });
    const heads = db.prepare<[], { rev: number }>('SELECT rev FROM accounts').all();
    db.close();
    expect(heads.length).toBeGreaterThan(0);
    for (const head of heads) expect(head.rev).toBeGreaterThan(1_000_000_000);
  });

  it('says to use pg_dump and pg_restore on PostgreSQL', async () => {
    for (const [command, tool] of [
      ['backup', 'pg_dump'],
      ['restore', 'pg_restore'],
    ] as const) {
      const result = await runCli([command, path.join(backupDir, 'pg.sqlite'), '--data-dir', store.dataDir], {
        env: { TASK_SERVICE_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
      });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(tool);
    }
  });
});
