import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { newAccount } from './support/accounts.js';
import { request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, taskSchema } from './support/wire.js';

/*
 * Issue #24, API.md 4.5, over real sockets and the wall clock: two `serve` processes on one
 * PostgreSQL database both look for reminders due; each reminder arrives at a real local receiver
 * as `reminder.due` with its task, once, and at most 5 s late; one that fell due while both were
 * stopped arrives once when they start again.
 */

/** The contract's bound from a reminder's time to its firing; the delivery comes just after. */
const LATE_AT_MOST_MS = 5000;
const TASKS = 6;

const delivery = z.object({ type: z.string(), data: z.object({ id: z.string() }).loose() });

/** An instant as the wire writes it, to the second. */
function wire(atMs: number): string {
  const iso = new Date(atMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000`;
}

describe('reminders with two serve processes on one PostgreSQL', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let database: TestDatabase;
  let servers: ServeProcess[] = [];
  let dirs: string[] = [];
  let token: string;
  let receiver: Server;
  let url: string;
  const arrivals: { body: z.infer<typeof delivery>; atMs: number }[] = [];

  beforeAll(async () => {
    receiver = createServer((incoming, response) => {
      let body = '';
      incoming.setEncoding('utf8');
      incoming.on('data', (chunk: string) => (body += chunk));
      incoming.on('end', () => {
        arrivals.push({ body: delivery.parse(JSON.parse(body)), atMs: Date.now() });
        response.statusCode = 204;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    database = await createTestDatabase();
    dirs = await Promise.all([makeTempDir('pg-remind-a'), makeTempDir('pg-remind-b')]);
    servers = await startBoth();
    token = await newAccount({ dataDir: dirs[0] ?? '', databaseUrl: database.url }, 'reminded');
  });

  function startBoth(): Promise<ServeProcess[]> {
    const args = ['--webhook-allow-private'];
    return Promise.all(dirs.map((dataDir) => startServe({ dataDir, http: true, databaseUrl: database.url, args })));
  }

  async function arrived(count: number, deadlineMs: number): Promise<void> {
    while (arrivals.length < count && Date.now() < deadlineMs) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  afterAll(async () => {
    await cleanUpProcesses();
    await new Promise((resolve) => receiver.close(resolve));
    await database?.drop();
  });

  it('fires each reminder once, as reminder.due with its task, at most 5 s late', async () => {
    const [a, b] = servers;
    if (a === undefined || b === undefined) throw new Error('the servers did not start');
    const auth = { authorization: `OAuth ${token}` };
    const made = await request(a.origin, {
      path: '/v1/webhooks',
      headers: auth,
      body: { url, events: ['reminder.due'] },
    });
    expect(made.status, made.text).toBe(200);
    // Whole seconds, about 2 s ahead: the wire's reminder times are to the second.
    const dueMs = Math.ceil((Date.now() + 2000) / 1000) * 1000;
    const ids: string[] = [];
    for (let index = 0; index < TASKS; index++) {
      const task = bodyOf(
        await request(index % 2 === 0 ? a.origin : b.origin, {
          path: '/v1/tasks',
          headers: auth,
          body: { title: `reminded #${index}`, reminders: [{ at: wire(dueMs) }] },
        }),
        taskSchema,
      );
      ids.push(task.id);
    }
    await arrived(TASKS, dueMs + 2 * LATE_AT_MOST_MS);
    // Long enough for a second firing by the other process to have come, were there one.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(arrivals.map((arrival) => arrival.body.type)).toEqual(ids.map(() => 'reminder.due'));
    expect(arrivals.map((arrival) => arrival.body.data.id).sort()).toEqual([...ids].sort());
    for (const arrival of arrivals) expect(arrival.atMs - dueMs).toBeLessThan(LATE_AT_MOST_MS);
  });

  it('fires a reminder that fell due while both were stopped once, when they start', async () => {
    arrivals.length = 0;
    const [a] = servers;
    if (a === undefined) throw new Error('the servers did not start');
    const auth = { authorization: `OAuth ${token}` };
    const dueMs = Math.ceil((Date.now() + 3000) / 1000) * 1000;
    const task = bodyOf(
      await request(a.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: { title: 'missed', reminders: [{ at: wire(dueMs) }] },
      }),
      taskSchema,
    );
    await Promise.all(servers.map((server) => server.stop()));
    expect(arrivals).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, dueMs + 500 - Date.now()));
    servers = await startBoth();
    await arrived(1, Date.now() + 2 * LATE_AT_MOST_MS);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(arrivals.map((arrival) => [arrival.body.type, arrival.body.data.id])).toEqual([['reminder.due', task.id]]);
  });
});
