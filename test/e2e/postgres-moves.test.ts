import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { taskList, type WireTask } from '../../src/http/wire/shapes.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { describeOnEachRoute, type PostgresRoute } from '../support/postgres-routes.js';
import { createToken, newAccount, storeFlags, type StoreArgs } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, expectError, taskArraySchema } from './support/wire.js';

const databases: TestDatabase[] = [];

async function database(): Promise<TestDatabase> {
  const made = await createTestDatabase();
  databases.push(made);
  return made;
}

function serveOn(store: StoreArgs): Promise<ServeProcess> {
  return startServe({
    dataDir: store.dataDir,
    http: true,
    ...(store.databaseUrl === undefined ? {} : { databaseUrl: store.databaseUrl }),
    ...(store.pooled === undefined ? {} : { databasePooled: store.pooled }),
  });
}

/** Where the service and its commands find `database`, on `route`. */
function storeOn(route: PostgresRoute, dataDir: string, database: TestDatabase): StoreArgs {
  return { dataDir, databaseUrl: route.url(database.url), pooled: route.pooled };
}

async function fill(server: ServeProcess, token: string, prefix: string): Promise<void> {
  const body = Array.from({ length: 30 }, (_, index) => ({
    id: `${prefix}-${index}`,
    title: `${prefix} task ${index}`,
    project: index % 2 === 0 ? 'Home' : 'Work',
    tags: [`t${index % 3}`],
    ...(index % 5 === 0 ? { all_day: true, start_at: '2026-03-29 00:00:00 +0100', repeater: 'FREQ=DAILY' } : {}),
  }));
  bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body }), taskArraySchema);
}

describeOnEachRoute(
  'PostgreSQL: pg_dump and pg_restore, and the move from SQLite',
  { timeout: E2E_TEST_TIMEOUT_MS * 2 },
  (route) => {
    afterAll(async () => {
      await cleanUpProcesses();
      await Promise.all(databases.map((made) => made.drop()));
    });

    it('serves the same records from a database restored with pg_restore, in a new life: cursors from before answer E008, new ones page on', async () => {
      const source = await database();
      const store = storeOn(route, await makeTempDir('pgdump'), source);
      const token = await newAccount(store, 'dumped', ['--timezone', 'Europe/Berlin']);
      let server = await serveOn(store);
      await fill(server, token, 'd');
      const list = (query = '') => request(server.origin, { path: `/v1/tasks${query}`, headers: oauth(token) });
      const before = bodyOf(await list(), taskList);
      await server.stop();

      const dump = path.join(store.dataDir, 'tasks.dump');
      const dumped = spawnSync('pg_dump', ['--format=custom', `--file=${dump}`, source.url], { encoding: 'utf8' });
      expect(dumped.status, dumped.stderr).toBe(0);
      // The old server goes on after the dump: a client's cursor gets ahead of it. A date on the
      // wire has whole seconds: one ahead of the dump names a later second than its last change.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      server = await serveOn(store);
      await fill(server, token, 'lost');
      const ahead = bodyOf(await list(`?cursor=${encodeURIComponent(before.cursor)}`), taskList);
      expect(ahead.entries).toHaveLength(30);
      const aheadDate = ahead.entries.at(-1)?.updated ?? '';
      await server.stop();

      const target = await database();
      const restored = spawnSync('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump], { encoding: 'utf8' });
      expect(restored.status, restored.stderr).toBe(0);
      server = await serveOn(storeOn(route, store.dataDir, target));
      const after = bodyOf(await list(), taskList);
      expect(after.entries).toEqual(before.entries);
      expect(after.cursor).not.toBe(before.cursor);
      // Positions of the old database, from before the dump and ahead of it: E008, nothing silent.
      for (const query of [
        `?cursor=${encodeURIComponent(before.cursor)}`,
        `?cursor=${encodeURIComponent(ahead.cursor)}`,
        `?updated_after=${encodeURIComponent(aheadDate)}`,
      ]) {
        expectError(await list(query), 400, 'E008');
      }
      // Page 2 of a listing made after the restore continues, and so does its last cursor.
      const first = bodyOf(await list('?limit=10'), taskList);
      const second = bodyOf(await list(`?cursor=${encodeURIComponent(first.cursor)}&limit=10`), taskList);
      expect(second.entries.map((task) => task.id)).toEqual(before.entries.slice(10, 20).map((task) => task.id));
      expect(bodyOf(await list(`?cursor=${encodeURIComponent(after.cursor)}`), taskList).entries).toEqual([]);
      // A restart is not a restore: the cursor handed out stays good.
      await server.stop();
      server = await serveOn(storeOn(route, store.dataDir, target));
      expect(bodyOf(await list(`?cursor=${encodeURIComponent(after.cursor)}`), taskList).entries).toEqual([]);
    });

    it('moves every account from SQLite to PostgreSQL by export and import, as docs/operations.md says', async () => {
      const folder = await makeTempDir('move');
      const sqlite: StoreArgs = { dataDir: path.join(folder, 'sqlite') };
      const users = ['ann', 'ben'];
      const tokens = new Map<string, string>();
      for (const user of users) tokens.set(user, await newAccount(sqlite, user, ['--timezone', 'Europe/Berlin']));
      let server = await serveOn(sqlite);
      for (const user of users) await fill(server, tokens.get(user) ?? '', user);
      const listings = new Map<string, WireTask[]>();
      for (const user of users) {
        const answer = await request(server.origin, { path: '/v1/tasks', headers: oauth(tokens.get(user) ?? '') });
        listings.set(user, bodyOf(answer, taskList).entries);
      }
      await server.stop();

      const target = await database();
      const postgres = storeOn(route, path.join(folder, 'pg'), target);
      mkdirSync(postgres.dataDir);
      const migrated = await runCli(['migrate', ...storeFlags(postgres)]);
      expect(migrated.code, migrated.stderr).toBe(0);
      for (const user of users) {
        const exported = await runCli(['export', user, ...storeFlags(sqlite)]);
        expect(exported.code, exported.stderr).toBe(0);
        const file = path.join(folder, `${user}.json`);
        writeFileSync(file, exported.stdout);
        const added = await runCli(['user', 'add', user, ...storeFlags(postgres)]);
        expect(added.code, added.stderr).toBe(0);
        const imported = await runCli(['import', user, file, ...storeFlags(postgres)]);
        expect(imported.code, imported.stderr).toBe(0);
        tokens.set(user, await createToken(postgres, user));
      }

      server = await serveOn(postgres);
      const stamps = new Set(['created', 'updated', 'rev']);
      const unstamped = (tasks: readonly WireTask[]) =>
        tasks.map((task) => Object.fromEntries(Object.entries(task).filter(([key]) => !stamps.has(key))));
      for (const user of users) {
        const answer = await request(server.origin, { path: '/v1/tasks', headers: oauth(tokens.get(user) ?? '') });
        const moved = bodyOf(answer, taskList).entries;
        expect(moved).toHaveLength(30);
        expect(unstamped(moved)).toEqual(unstamped(listings.get(user) ?? []));
        // The zone moved with the settings: all-day dates are the same local dates.
        expect(moved.find((task) => task.id === `${user}-0`)?.start_at).toBe('2026-03-29 00:00:00 +0100');
      }
    });
  },
);
