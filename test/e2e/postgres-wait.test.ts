import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { describeOnEachRoute } from '../support/postgres-routes.js';
import { newAccount } from './support/accounts.js';
import { request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, taskListSchema, taskSchema } from './support/wire.js';

/*
 * Issue #24, API.md 4.6, over real sockets: two `serve` processes on one PostgreSQL database. A
 * request waiting on A is answered by a change made through B within 1 s. Through PgBouncer,
 * each process listens past the pooler (--database-listen-url, the server itself).
 */

/** The contract's bound from a change's commit to the waiting request's answer. */
const ANSWERED_WITHIN_MS = 1000;

describeOnEachRoute('waiting for changes across two serve processes', { timeout: E2E_TEST_TIMEOUT_MS }, (route) => {
  let database: TestDatabase;
  let servers: ServeProcess[] = [];
  let token: string;
  const auth = (): Record<string, string> => ({ authorization: `OAuth ${token}` });

  beforeAll(async () => {
    database = await createTestDatabase();
    const dirs = await Promise.all([makeTempDir('pg-wait-a'), makeTempDir('pg-wait-b')]);
    const databaseUrl = route.url(database.url);
    const args = route.pooled ? ['--database-listen-url', database.url] : [];
    servers = await Promise.all(
      dirs.map((dataDir) => startServe({ dataDir, http: true, databaseUrl, databasePooled: route.pooled, args })),
    );
    token = await newAccount({ dataDir: dirs[0] ?? '', databaseUrl, pooled: route.pooled }, 'waiter');
  });

  afterAll(async () => {
    await cleanUpProcesses();
    await database?.drop();
  });

  it('answers a request waiting on A with a change made through B, within 1 s', async () => {
    const [a, b] = servers;
    if (a === undefined || b === undefined) throw new Error('the servers did not start');
    const first = bodyOf(await request(a.origin, { path: '/v1/tasks', headers: auth() }), taskListSchema);
    for (let round = 0; round < 3; round++) {
      const cursor = round === 0 ? first.cursor : (await listFrom(a)).cursor;
      const waiting = request(a.origin, {
        path: `/v1/tasks?cursor=${cursor}&wait=30`,
        headers: auth(),
        timeoutMs: 40_000,
      });
      // Long enough for A to have read its (empty) answer and gone to wait.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const created = bodyOf(
        await request(b.origin, { path: '/v1/tasks', headers: auth(), body: { title: `through B #${round}` } }),
        taskSchema,
      );
      const committedAt = performance.now();
      const answer = bodyOf(await waiting, taskListSchema);
      const lagMs = performance.now() - committedAt;
      expect(answer.entries.map((task) => task.id)).toEqual([created.id]);
      expect(lagMs).toBeLessThan(ANSWERED_WITHIN_MS);
    }
  });

  async function listFrom(server: ServeProcess): Promise<{ cursor: string }> {
    return bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth() }), taskListSchema);
  }
});
