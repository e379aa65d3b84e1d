import { afterEach, expect, it } from 'vitest';
import { TaskServiceClient } from '../../src/client/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { describeOnEachRoute } from '../support/postgres-routes.js';
import { createToken, newAccount, addUser } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  freePort,
  makeTempDir,
  parseLogLines,
  startServe,
} from './support/processes.js';
import { bodyOf, taskListSchema, taskSchema } from './support/wire.js';

describeOnEachRoute('serve on PostgreSQL', { timeout: E2E_TEST_TIMEOUT_MS }, (route) => {
  const databases: TestDatabase[] = [];

  afterEach(async () => {
    // The processes first: dropping a database they still use would make them log errors.
    await cleanUpProcesses();
    await Promise.all(databases.splice(0).map((database) => database.drop()));
  });

  async function freshDatabase(): Promise<TestDatabase> {
    const database = await createTestDatabase();
    databases.push(database);
    return database;
  }

  it('serve --database-url comes up on a fresh database and serves the flow', async () => {
    const database = await freshDatabase();
    const dataDir = await makeTempDir('pg');
    const databaseUrl = route.url(database.url);
    const store = { dataDir, databaseUrl, pooled: route.pooled };
    const server = await startServe({ dataDir, http: true, databaseUrl, databasePooled: route.pooled });
    expect(parseLogLines(server.stdout()).find((line) => line.msg === 'task-service listening')?.['engine']).toBe(
      'postgres',
    );

    // Admin commands reach the same database while it runs.
    const token = await newAccount(store, 'pg-user', ['--timezone', 'Asia/Shanghai']);
    const auth = oauth(token);
    const health = await request(server.origin, { path: '/healthz' });
    expect(health.text).toBe('{"status":"ok"}');

    const created = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: { id: 'Jd1L1v0nQ0ypG4m0S8q4xg==', title: 'on postgres', start_at: '2026-11-21 09:30:00 +0800' },
      }),
      taskSchema,
    );
    expect(created).toMatchObject({ attribute: 'plan', start_at: '2026-11-21 09:30:00 +0800' });
    const first = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
    expect(first.entries).toEqual([created]);
    const completed = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: { ...created, completed: '2026-11-21 10:00:00 +0800' },
      }),
      taskSchema,
    );
    const synced = bodyOf(
      await request(server.origin, { path: `/v1/tasks?cursor=${encodeURIComponent(first.cursor)}`, headers: auth }),
      taskListSchema,
    );
    expect(synced.entries).toEqual([completed]);

    // Data outlives the process: a restart on the same database sees it.
    expect((await server.stop()).code).toBe(0);
    const again = await startServe({ dataDir, http: true, databaseUrl, databasePooled: route.pooled });
    const listed = await new TaskServiceClient({ baseUrl: again.origin, token }).tasks.all();
    expect(listed).toMatchObject([{ id: completed.id, title: 'on postgres', rev: completed.rev }]);
    expect(listed[0]?.completed).toEqual(new Date('2026-11-21T02:00:00Z'));
  });

  it('two serve processes started at the same instant on an empty database both come up and share it', async () => {
    const database = await freshDatabase();
    const [dirA, dirB] = await Promise.all([makeTempDir('pg-a'), makeTempDir('pg-b')]);
    const [portA, portB] = [await freePort(), await freePort()];
    expect(portA).not.toBe(portB);
    // Both are spawned in the same tick and migrate the same empty database at once: the
    // migration lock makes one wait for the other.
    const databaseUrl = route.url(database.url);
    const [a, b] = await Promise.all([
      startServe({ dataDir: dirA, http: true, databaseUrl, databasePooled: route.pooled, port: portA }),
      startServe({ dataDir: dirB, http: true, databaseUrl, databasePooled: route.pooled, port: portB }),
    ]);
    for (const server of [a, b]) {
      const health = await request(server.origin, { path: '/healthz' });
      expect(health.status).toBe(200);
      expect(health.text).toBe('{"status":"ok"}');
    }

    const store = { dataDir: dirA, databaseUrl, pooled: route.pooled };
    await addUser(store, 'shared');
    const token = await createToken(store, 'shared');
    const onA = new TaskServiceClient({ baseUrl: a.origin, token });
    const onB = new TaskServiceClient({ baseUrl: b.origin, token });
    const fromA = await onA.tasks.save({ title: 'written on A' });
    const fromB = await onB.tasks.save({ title: 'written on B' });
    expect(fromB.rev).toBeGreaterThan(fromA.rev);
    for (const client of [onA, onB]) {
      expect((await client.tasks.all()).map((task) => task.title)).toEqual(['written on A', 'written on B']);
    }
    expect(a.stderr() + b.stderr()).toBe('');
  });
});
