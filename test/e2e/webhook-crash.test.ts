import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { newAccount } from './support/accounts.js';
import { request } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, makeTempDir, startServe } from './support/processes.js';
import { bodyOf, taskSchema } from './support/wire.js';

/*
 * Issue #24, API.md 4.7: a delivery is stored with its change. `serve` is killed (SIGKILL) while
 * the delivery of a committed change is on its way (the receiver holds it unanswered), and
 * started again on the same store: the delivery comes again, with the same webhook-id.
 */

interface Held {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const hookAnswer = z.object({ id: z.string(), secret: z.string() }).loose();

describe.each(['sqlite', 'postgres'] as const)('webhook deliveries across a crash on %s', (engine) => {
  let server: Server | undefined;
  let database: TestDatabase | undefined;
  const held: ServerResponse[] = [];

  afterEach(async () => {
    for (const response of held.splice(0)) response.destroy();
    await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
    server?.closeAllConnections();
    await cleanUpProcesses();
    await database?.drop();
    database = undefined;
  });

  it(
    'delivers after kill -9 and a restart what was committed before',
    async () => {
      const received: Held[] = [];
      let hold = true;
      let arrived: () => void = () => undefined;
      server = createServer((incoming, response) => {
        let body = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => (body += chunk));
        incoming.on('end', () => {
          received.push({ headers: incoming.headers, body });
          arrived();
          if (hold) held.push(response);
          else response.end();
        });
      });
      await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
      const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const nextArrival = (): Promise<void> => new Promise((resolve) => (arrived = resolve));

      const dataDir = await makeTempDir(`hook-crash-${engine}`);
      if (engine === 'postgres') database = await createTestDatabase();
      const databaseUrl = database?.url;
      const store = databaseUrl === undefined ? { dataDir } : { dataDir, databaseUrl };
      const args = ['--webhook-allow-private'];
      const first = await startServe({ ...store, http: true, args });
      const token = await newAccount(store, 'hooked');
      const auth = { authorization: `OAuth ${token}` };
      const made = await request(first.origin, {
        path: '/v1/webhooks',
        headers: auth,
        body: { url: receiverUrl, events: ['task.created'] },
      });
      expect(made.status, made.text).toBe(200);
      hookAnswer.parse(JSON.parse(made.text));

      const firstTry = nextArrival();
      const task = bodyOf(
        await request(first.origin, { path: '/v1/tasks', headers: auth, body: { title: 'survives a crash' } }),
        taskSchema,
      );
      await firstTry;
      await first.stop('SIGKILL');

      hold = false;
      const again = nextArrival();
      await startServe({ ...store, http: true, args });
      await again;
      const [before, after] = received;
      expect(after?.headers['webhook-id']).toBe(before?.headers['webhook-id']);
      expect(JSON.parse(after?.body ?? '{}')).toMatchObject({ type: 'task.created', data: { id: task.id } });
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
