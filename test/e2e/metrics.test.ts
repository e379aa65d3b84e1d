import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { newAccount, prepareStore, type StoreArgs } from './support/accounts.js';
import { jsonOf, oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  freePort,
  makeTempDir,
  parseLogLines,
  startServe,
  waitFor,
} from './support/processes.js';
import { bodyOf, expectError, taskSchema } from './support/wire.js';
import { addUserWithPassword } from './support/auth-server.js';
import { WebSession } from './support/web-session.js';

/** The value of the one sample whose name and labels are exactly these, or undefined. */
function sample(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.keys(found).length !== Object.keys(labels).length) continue;
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(port: number): Promise<string> {
  const response = await request(`http://127.0.0.1:${port}`, { path: '/metrics' });
  expect(response.status).toBe(200);
  expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return response.text;
}

const databases: TestDatabase[] = [];

describe('GET /metrics on its own port, /livez and /readyz', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
    await Promise.all(databases.map((database) => database.drop()));
  });

  it('counts requests by route pattern and retcode, refusals, in-flight, purge runs, reminders, event loop and WAL', async () => {
    const store: StoreArgs = { dataDir: await makeTempDir('metrics') };
    const token = await newAccount(store, 'watched');
    const metricsPort = await freePort();
    const server = await startServe({
      dataDir: store.dataDir,
      http: true,
      args: ['--metrics-port', String(metricsPort), '--rate-limit', '1/s'],
    });
    const listening = parseLogLines(server.stdout()).find((line) => line.msg === 'task-service listening');
    expect(listening?.['metrics']).toBe(`http://127.0.0.1:${metricsPort}/metrics`);

    // A reminder about 2 s ahead (whole seconds, as the wire writes them), fired while this runs.
    const remindAt = new Date(Math.ceil((Date.now() + 2000) / 1000) * 1000).toISOString();
    const reminder = { at: `${remindAt.slice(0, 10)} ${remindAt.slice(11, 19)} +0000` };
    const created = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: oauth(token),
        body: { title: 'seen', reminders: [reminder] },
      }),
      taskSchema,
    );
    // The bucket holds one second of requests: the next ones in a row are refused.
    let refused = 0;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const answer = await request(server.origin, { path: `/v1/tasks/${created.id}`, headers: oauth(token) });
      if (answer.status === 503) refused += 1;
    }
    expect(refused).toBeGreaterThan(0);
    expectError(await request(server.origin, { path: '/no/such/thing' }), 400, 'E002');

    let text = await scrape(metricsPort);
    for (let tries = 0; sample(text, 'task_service_reminders_fired_total') === 0 && tries < 80; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape(metricsPort);
    }
    expect(sample(text, 'task_service_reminders_fired_total')).toBe(1);
    expect(sample(text, 'task_service_reminders_late_total')).toBe(0);
    // Labelled by the route pattern: the record's id appears nowhere.
    expect(text).not.toContain(created.id);
    expect(sample(text, 'task_service_http_answers_total', { route: '/v1/tasks', retcode: 'ok' })).toBe(1);
    expect(sample(text, 'task_service_http_answers_total', { route: '/v1/tasks/*', retcode: 'E503' })).toBe(refused);
    expect(sample(text, 'task_service_http_answers_total', { route: 'unmatched', retcode: 'E002' })).toBe(1);
    expect(
      sample(text, 'task_service_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/tasks',
        status: '200',
      }),
    ).toBe(1);
    expect(sample(text, 'task_service_http_refused_total', { reason: 'rate_limit' })).toBe(refused);
    expect(sample(text, 'task_service_http_requests_in_flight')).toBe(0);
    expect(sample(text, 'task_service_purge_runs_total', { outcome: 'ok' })).toBe(1);
    expect(sample(text, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(sample(text, 'task_service_store_wal_bytes')).toBeGreaterThan(0);

    // Not on the API's port: /metrics has no credential.
    expectError(await request(server.origin, { path: '/metrics' }), 400, 'E002');
  });

  it('counts refused sign-ins, and logs an address slowed for a name without what it typed (ACCOUNTS.md 2)', async () => {
    const store: StoreArgs = { dataDir: await makeTempDir('metrics-sign-in') };
    await prepareStore(store);
    await addUserWithPassword(store, 'owner', 'correct horse battery');
    const metricsPort = await freePort();
    const server = await startServe({
      dataDir: store.dataDir,
      http: true,
      args: ['--metrics-port', String(metricsPort)],
    });
    const guesser = new WebSession(server.origin);
    // Five failures for one name from one address; the sixth try is not even checked.
    for (let guess = 0; guess < 6; guess += 1) {
      expect((await guesser.signInAt('/login', 'owner', `guess-number-${guess}`)).status).toBe(401);
    }
    const text = await scrape(metricsPort);
    expect(sample(text, 'task_service_sign_in_failures_total', { outcome: 'wrong' })).toBe(5);
    expect(sample(text, 'task_service_sign_in_failures_total', { outcome: 'throttled' })).toBe(1);
    // The line is written before the answer, but reaches this process over the child's stdout pipe
    // in its own time: CI read it once before it had come.
    const slowedLines = () =>
      parseLogLines(server.stdout()).filter((line) => line.msg?.startsWith('sign-in refused unchecked'));
    await waitFor(() => slowedLines().length > 0);
    const slowed = slowedLines();
    expect(slowed).toEqual([expect.objectContaining({ username: 'owner', address: '127.0.0.1' })]);
    expect(server.stdout()).not.toContain('guess-number');
  });

  it('reports the connection pool on PostgreSQL', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const store: StoreArgs = { dataDir: await makeTempDir('metrics-pg'), databaseUrl: database.url };
    const token = await newAccount(store, 'pooled');
    const metricsPort = await freePort();
    const server = await startServe({
      dataDir: store.dataDir,
      http: true,
      databaseUrl: database.url,
      args: ['--metrics-port', String(metricsPort)],
    });
    bodyOf(
      await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: { title: 'x' } }),
      taskSchema,
    );
    const text = await scrape(metricsPort);
    expect(sample(text, 'task_service_store_pool_connections', { state: 'idle' })).toBeGreaterThan(0);
    expect(sample(text, 'task_service_store_pool_connections', { state: 'waiting' })).toBe(0);
    expect(sample(text, 'task_service_store_wal_bytes')).toBeUndefined();
  });

  it('answers /livez always and /readyz with 503 while draining after SIGTERM, then stops', async () => {
    const store: StoreArgs = { dataDir: await makeTempDir('drain') };
    const server = await startServe({ dataDir: store.dataDir, http: true, args: ['--drain-delay', '5'] });
    expect(jsonOf(await request(server.origin, { path: '/readyz' }))).toEqual({ status: 'ok' });
    expect(jsonOf(await request(server.origin, { path: '/livez' }))).toEqual({ status: 'ok' });

    server.child.kill('SIGTERM');
    await waitFor(() => server.stdout().includes('stopping'));
    // Still listening during the drain delay: ready no more, alive still.
    expectError(await request(server.origin, { path: '/readyz' }), 503, 'E503');
    expect(jsonOf(await request(server.origin, { path: '/livez' }))).toEqual({ status: 'ok' });
    const exit = await server.exited;
    expect(exit.code).toBe(0);
  });
});
