import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { newAccount } from './support/accounts.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { oauth, request, type HttpResponse, type RequestOptions } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  parseLogLines,
  runCli,
  startServe,
} from './support/processes.js';
import { bodyOf, taskListSchema, taskSchema, type WireTask } from './support/wire.js';

/*
 * Issue #15, 3: the service behind PgBouncer in transaction pooling mode, with ONE server
 * connection per database. Every transaction of every client runs on that same server session,
 * so anything the service left on a session (a SET, a named prepared statement, an advisory lock,
 * a LISTEN, a temp table, a cursor) is still there for the next one to find, and a request that
 * needed a second connection while holding the first would wait for itself.
 */

const WRITERS_PER_PROCESS = 3;
const WRITES_PER_WRITER = 10;
const LISTS_PER_PROCESS = 10;
/**
 * Tries of one request refused with E503. With one server connection a transaction waits while
 * another process holds it; on a busy machine that other process may be descheduled inside its
 * transaction past PgBouncer's query_wait_timeout (3 s), and the waiting request is answered E503
 * with Retry-After, which a client retries (an Idempotency-Key makes a write safe to send again).
 * A request that waited for itself would be refused every time: bounded tries still fail it.
 */
const TRIES_PAST_E503 = 5;

/** `options` sent until it is answered with anything but E503, as the contract asks of a client. */
async function served(origin: string, options: RequestOptions): Promise<HttpResponse> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await request(origin, options);
    if (response.status !== 503 || attempt === TRIES_PAST_E503) return response;
    await sleep(Number(response.headers['retry-after'] ?? '1') * 1000);
  }
}

/** What a server session carries besides its transactions: what the service must never leave. */
const SESSION_STATE = `SELECT
  current_setting('statement_timeout') AS statement_timeout,
  current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout,
  current_setting('search_path') AS search_path,
  (SELECT count(*)::int FROM pg_prepared_statements) AS prepared_statements,
  (SELECT count(*)::int FROM pg_cursors) AS cursors,
  (SELECT count(*)::int FROM pg_listening_channels()) AS listening_channels,
  (SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()) AS advisory_locks,
  (SELECT count(*)::int FROM pg_class WHERE relpersistence = 't') AS temp_tables`;

async function query<Row extends pg.QueryResultRow>(url: string, text: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
}

describe(
  'serve behind PgBouncer in transaction mode with one server connection',
  { timeout: E2E_TEST_TIMEOUT_MS },
  () => {
    let bouncer: PgBouncer | undefined;
    const databases: TestDatabase[] = [];

    /** `url`, a database of the test server, through the pooler. */
    function pooled(url: string): string {
      if (bouncer === undefined) throw new Error('PgBouncer has not started');
      return bouncer.route(url);
    }

    beforeAll(async () => {
      bouncer = await startPgBouncer({ poolSize: 1 });
    });
    afterEach(async () => {
      await cleanUpProcesses();
      await Promise.all(databases.splice(0).map((database) => database.drop()));
    });
    afterAll(async () => {
      await bouncer?.stop();
    });

    async function freshDatabase(): Promise<TestDatabase> {
      const database = await createTestDatabase();
      databases.push(database);
      return database;
    }

    it('really shares its server session: a setting one client leaves is what the next client gets', async () => {
      // The premise of the test below: without it, state left on a session would go unseen.
      const url = pooled((await freshDatabase()).url);
      const first = new pg.Client({ connectionString: url });
      await first.connect();
      try {
        await first.query("SET statement_timeout = '4321ms'");
        const [seen] = await query<{ statement_timeout: string }>(url, 'SHOW statement_timeout');
        expect(seen?.statement_timeout).toBe('4321ms');
      } finally {
        await first.end();
      }
    });

    it('two processes migrate, write and list through it at once, a third purges, and none leaves anything on the session', async () => {
      const database = await freshDatabase();
      const databaseUrl = pooled(database.url);
      const [dirA, dirB] = await Promise.all([makeTempDir('pgb-a'), makeTempDir('pgb-b')]);
      // Both migrate the empty database at once: the migration lock is taken inside a transaction.
      const servers = await Promise.all(
        [dirA, dirB].map((dataDir) => startServe({ dataDir, http: true, databaseUrl, databasePooled: true })),
      );
      const token = await newAccount({ dataDir: dirA, databaseUrl, pooled: true }, 'pooled-user');
      const auth = oauth(token);

      const writer = async (origin: string, name: string): Promise<void> => {
        for (let serial = 0; serial < WRITES_PER_WRITER; serial++) {
          const body = { id: `${name}-${serial}`, title: `${name} #${serial}` };
          const headers = { ...auth, 'idempotency-key': `${name}-${serial}` };
          bodyOf(await served(origin, { path: '/v1/tasks', headers, body }), taskSchema);
        }
      };
      const reader = async (origin: string): Promise<void> => {
        for (let turn = 0; turn < LISTS_PER_PROCESS; turn++) {
          bodyOf(await served(origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
        }
      };
      await Promise.all(
        servers.flatMap((server, index) => [
          ...Array.from({ length: WRITERS_PER_PROCESS }, (_, writerIndex) =>
            writer(server.origin, `p${index}w${writerIndex}`),
          ),
          reader(server.origin),
        ]),
      );

      // Every write is there once, with consecutive change numbers, seen alike through both processes.
      const total = servers.length * WRITERS_PER_PROCESS * WRITES_PER_WRITER;
      const listings: WireTask[][] = [];
      for (const server of servers) {
        listings.push(
          bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema).entries,
        );
      }
      expect(listings[0]?.map((task) => task.rev)).toEqual(Array.from({ length: total }, (_, index) => index + 1));
      expect(listings[1]).toEqual(listings[0]);
      // A process started now, keeping no tombstones, purges the one there is on start, in a
      // transaction of its own.
      const deleted = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const tombstone = { id: 'p0w0-0', deleted };
      bodyOf(
        await request(servers[0]?.origin ?? '', { path: '/v1/tasks', headers: auth, body: tombstone }),
        taskSchema,
      );
      const third = await startServe({
        dataDir: dirA,
        http: true,
        databaseUrl,
        databasePooled: true,
        args: ['--retention', '0'],
      });
      servers.push(third);
      expect(
        parseLogLines(third.stdout()).find((line) => line.msg === 'purged deleted records past retention'),
      ).toMatchObject({
        purged: 1,
      });

      // The one server session that served all of it is as a new session of the server starts.
      const [fresh] = await query(database.url, SESSION_STATE);
      const [pooledSession] = await query(databaseUrl, SESSION_STATE);
      expect(pooledSession).toEqual(fresh);
      const sessions = await query<{ count: number }>(
        database.url,
        `SELECT count(*)::int AS count FROM pg_stat_activity WHERE datname = '${database.name}' AND pid <> pg_backend_pid()`,
      );
      expect(sessions[0]?.count).toBe(1);
      for (const server of servers) expect(server.stderr()).toBe('');
    });

    it('a service not told --database-pooled is refused by PgBouncer, and says which flag to add; the flag needs a URL', async () => {
      const database = await freshDatabase();
      const result = await runCli([
        'migrate',
        '--data-dir',
        await makeTempDir('pgb-flag'),
        '--database-url',
        pooled(database.url),
      ]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('unsupported startup parameter');
      expect(result.stderr).toContain('add --database-pooled');

      // The flag says what --database-url points at: alone it is a mistake, not an SQLite store.
      const alone = await runCli(['migrate', '--data-dir', await makeTempDir('pgb-alone'), '--database-pooled']);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain('--database-pooled goes with --database-url');
    });
  },
);
