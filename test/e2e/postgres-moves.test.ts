import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
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
  REPO_ROOT,
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

/** The one statement docs/operations.md gives to run after pg_restore, taken from the docs themselves. */
function documentedRestoreStatement(): string {
  const docs = readFileSync(path.join(REPO_ROOT, 'docs', 'operations.md'), 'utf8');
  const statement = /`(UPDATE accounts SET rev = [^`]+)`/.exec(docs)?.[1];
  if (statement === undefined) throw new Error('docs/operations.md gives no statement to run after pg_restore');
  return statement;
}

describeOnEachRoute(
  'PostgreSQL: pg_dump and pg_restore, and the move from SQLite',
  { timeout: E2E_TEST_TIMEOUT_MS * 2 },
  (route) => {
    afterAll(async () => {
      await cleanUpProcesses();
      await Promise.all(databases.map((made) => made.drop()));
    });

    it('serves the same answers from a database restored with pg_restore, and expires cursors with the documented statement', async () => {
      const source = await database();
      const store = storeOn(route, await makeTempDir('pgdump'), source);
      const token = await newAccount(store, 'dumped', ['--timezone', 'Europe/Berlin']);
      let server = await serveOn(store);
      await fill(server, token, 'd');
      const before = await request(server.origin, { path: '/v1/tasks', headers: oauth(token) });
      const cursor = bodyOf(before, taskList).cursor;
      await server.stop();

      const dump = path.join(store.dataDir, 'tasks.dump');
      const dumped = spawnSync('pg_dump', ['--format=custom', `--file=${dump}`, source.url], { encoding: 'utf8' });
      expect(dumped.status, dumped.stderr).toBe(0);
      const target = await database();
      const restored = spawnSync('pg_restore', ['--no-owner', `--dbname=${target.url}`, dump], { encoding: 'utf8' });
      expect(restored.status, restored.stderr).toBe(0);

      const restoredStore = storeOn(route, store.dataDir, target);
      server = await serveOn(restoredStore);
      const after = await request(server.origin, { path: '/v1/tasks', headers: oauth(token) });
      expect(after.status).toBe(200);
      expect(after.text).toBe(before.text);
      await server.stop();

      const client = new pg.Client({ connectionString: target.url });
      await client.connect();
      try {
        await client.query(documentedRestoreStatement());
      } finally {
        await client.end();
      }
      server = await serveOn(restoredStore);
      expectError(
        await request(server.origin, { path: `/v1/tasks?cursor=${encodeURIComponent(cursor)}`, headers: oauth(token) }),
        400,
        'E008',
      );
      const fresh = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token) }), taskList);
      expect(fresh.entries.map((task) => task.id)).toEqual(bodyOf(before, taskList).entries.map((task) => task.id));
      const since = await request(server.origin, {
        path: `/v1/tasks?cursor=${encodeURIComponent(fresh.cursor)}`,
        headers: oauth(token),
      });
      expect(bodyOf(since, taskList).entries).toEqual([]);
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
