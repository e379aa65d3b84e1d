import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SwitchableProxy } from '../store/postgres-proxy.js';
import { startPgBouncer } from '../support/pgbouncer.js';
import { createTestDatabase, TEST_DATABASE_BASE_URL, type TestDatabase } from '../support/postgres.js';
import { newAccount } from './support/accounts.js';
import { addUserWithPassword } from './support/auth-server.js';
import { hiddenFields, WebSession } from './support/web-session.js';
import { oauth, request, startRequest, type HttpResponse } from './support/http.js';
import { CommitCutProxy } from './support/commit-cut-proxy.js';
import { KeepAliveClient } from './support/keep-alive.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  waitFor,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, errorSchema, taskListSchema, taskSchema } from './support/wire.js';

/*
 * Issue #3, process level: a `serve` process whose database goes away (connections cut, new ones
 * refused) and comes back. Meanwhile it answers E503 with Retry-After, quickly, and stays up;
 * afterwards it serves again by itself (docs/operations.md, "Outages").
 */

/** The longest any request may take while the database is away: no hang. */
const OUTAGE_ANSWER_MS = 6_000;
/** Writers posting when the connection is cut. */
const BURST_WRITERS = 4;

/** The answer must be the contract's E503 with `Retry-After`. */
function expectUnavailable(response: HttpResponse): void {
  expect(bodyOf(response, errorSchema, 503).retcode).toBe('E503');
  expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
}

interface Timed {
  readonly response: HttpResponse;
  readonly ms: number;
}

async function timed(answer: Promise<HttpResponse>): Promise<Timed> {
  const started = Date.now();
  const response = await answer;
  return { response, ms: Date.now() - started };
}

/**
 * The tests, straight to PostgreSQL or (`pooled`) through a PgBouncer in transaction mode between
 * the service and the relay: the database goes away behind the pooler, which stays up.
 */
function outageSuite(title: string, pooled: boolean): void {
  describe(title, { timeout: E2E_TEST_TIMEOUT_MS }, () => {
    const cleanups: (() => Promise<void>)[] = [];

    afterEach(async () => {
      // Processes before the proxy and the database they use.
      await cleanUpProcesses();
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    /**
     * A fresh database, a relay in front of the PostgreSQL server (`startRelay`), one `serve` whose
     * `--database-url` goes through the relay, an account, and an admin connection that does not.
     */
    async function setUp<Relay extends { readonly port: number; down(): Promise<void> }>(
      startRelay: (target: { host: string; port: number }) => Promise<Relay>,
    ): Promise<{
      database: TestDatabase;
      proxy: Relay;
      server: ServeProcess;
      admin: pg.Client;
      token: string;
      accountId: number;
    }> {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const base = new URL(TEST_DATABASE_BASE_URL);
      const proxy = await startRelay({ host: base.hostname, port: Number(base.port || 5432) });
      cleanups.push(() => proxy.down());
      const proxied = new URL(database.url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      let databaseUrl = proxied.toString();
      if (pooled) {
        const bouncer = await startPgBouncer({ server: { host: '127.0.0.1', port: proxy.port } });
        cleanups.push(() => bouncer.stop());
        databaseUrl = bouncer.route(database.url);
      }
      const dataDir = await makeTempDir('pg-outage');
      const server = await startServe({ dataDir, http: true, databaseUrl, databasePooled: pooled });
      // Admin commands and checks go straight to the database, not through the proxy.
      const token = await newAccount({ dataDir, databaseUrl: database.url }, 'outage-user');
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      cleanups.push(() => admin.end());
      const account = await admin.query<{ id: string }>("SELECT id FROM accounts WHERE username = 'outage-user'");
      return { database, proxy, server, admin, token, accountId: Number(account.rows[0]?.id) };
    }

    /** Asks until a list answers 200 (each answer before that must be E503), and says how long it took. */
    async function waitForRecovery(origin: string, token: string): Promise<number> {
      const started = Date.now();
      for (;;) {
        const { response, ms } = await timed(request(origin, { path: '/v1/tasks', headers: oauth(token) }));
        expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);
        if (response.status === 200) return Date.now() - started;
        expectUnavailable(response);
        if (Date.now() - started > 15_000) throw new Error('the service did not recover within 15 s of the database');
        await sleep(100);
      }
    }

    it('answers E503 with Retry-After while the database is away, stays up, and serves again by itself', async () => {
      const { database, proxy, server, token } = await setUp((target) => SwitchableProxy.start(target));
      const auth = oauth(token);
      // Issue 21 item 6: the signed-in browser's /account endpoints answer the outage as /v1 does.
      const browserStore = { dataDir: await makeTempDir('pg-outage-admin'), databaseUrl: database.url };
      await addUserWithPassword(browserStore, 'outage-browser', 'correct horse battery');
      const browser = new WebSession(server.origin);
      await browser.signIn('outage-browser', 'correct horse battery');
      const signingIn = new WebSession(server.origin);
      const loginForm = hiddenFields((await signingIn.get('/login')).text, '/login');
      const created = bodyOf(
        await request(server.origin, {
          path: '/v1/tasks',
          headers: auth,
          body: { id: 'before', title: 'before the outage' },
        }),
        taskSchema,
      );
      expect(
        bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema).entries,
      ).toEqual([created]);
      expect((await request(server.origin, { path: '/healthz' })).status).toBe(200);

      await proxy.down();
      const outageStarted = Date.now();
      const slowest: number[] = [];
      // Several rounds: the first meets the connections just cut, later ones connections refused.
      for (let round = 0; round < 3; round++) {
        const answers = await Promise.all([
          timed(request(server.origin, { path: '/v1/tasks', headers: auth })),
          timed(request(server.origin, { path: '/v1/tasks?cursor=c1.0&limit=10', headers: auth })),
          timed(request(server.origin, { path: '/v1/tasks/before', headers: auth })),
          timed(
            request(server.origin, { path: '/v1/tasks', headers: auth, body: { title: `during the outage ${round}` } }),
          ),
          timed(
            request(server.origin, {
              path: '/v1/tasks',
              headers: auth,
              body: { ...created, title: 'changed in the outage' },
            }),
          ),
          timed(request(server.origin, { path: '/v1/settings', headers: auth })),
          timed(request(server.origin, { path: '/healthz' })),
          timed(browser.get('/account/session')),
          timed(browser.get('/account/tokens')),
        ]);
        for (const { response, ms } of answers) {
          expectUnavailable(response);
          expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);
        }
        // The sign-in pages say it as a page: 503 with Retry-After, never a 500.
        const pages = await Promise.all([
          timed(browser.get('/login')),
          timed(signingIn.post('/login', { ...loginForm, username: 'outage-browser', password: 'x' })),
        ]);
        for (const { response, ms } of pages) {
          expect(response.status, response.text).toBe(503);
          expect(response.headers['retry-after']).toBe('1');
          expect(response.text).toContain('The server cannot reach its storage just now.');
          expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);
        }
        slowest.push(Math.max(...answers.map((answer) => answer.ms)));
        expect(server.child.exitCode).toBeNull();
        await sleep(300);
      }

      await proxy.up();
      const recoveryMs = await waitForRecovery(server.origin, token);
      console.log(
        'outage',
        JSON.stringify({ outageMs: Date.now() - outageStarted, slowestAnswerMsPerRound: slowest, recoveryMs }),
      );

      // Everything works again, and nothing written during the outage was kept.
      expect((await request(server.origin, { path: '/healthz' })).text).toBe('{"status":"ok"}');
      const after = bodyOf(
        await request(server.origin, {
          path: '/v1/tasks',
          headers: auth,
          body: { id: 'after', title: 'after the outage' },
        }),
        taskSchema,
      );
      expect(after.rev).toBe(created.rev + 1);
      const listed = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
      expect(listed.entries.map((task) => [task.id, task.title])).toEqual([
        ['before', 'before the outage'],
        ['after', 'after the outage'],
      ]);
      expect(server.child.exitCode).toBeNull();
      expect(server.child.signalCode).toBeNull();
      expect(server.stderr()).toBe('');
    });

    it('a POST waiting for the account lock when the connection is cut answers E503; its retry with the Idempotency-Key applies it once', async () => {
      const { proxy, server, admin, token, accountId } = await setUp((target) => SwitchableProxy.start(target));
      const auth = oauth(token);
      const body = { id: 'held', title: 'in flight at the cut' };
      const headers = { ...auth, 'idempotency-key': 'held-1' };

      // Another session holds the account's row, so the POST's transaction waits on it, inside the database.
      await admin.query('BEGIN');
      await admin.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [accountId]);
      const pending = startRequest(server.origin, { path: '/v1/tasks', headers, body });
      const waiting = async (): Promise<boolean> => {
        const result = await admin.query(
          // Any session of the database but this one: through PgBouncer the server connection need
          // not carry the service's application_name.
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'",
        );
        return result.rows.length > 0;
      };
      const deadline = Date.now() + 10_000;
      while (!(await waiting())) {
        if (Date.now() > deadline) throw new Error('the POST never reached the account lock');
        await sleep(20);
      }

      await proxy.down();
      const { response, ms } = await timed(pending.response);
      expectUnavailable(response);
      expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);
      // The session that waited for the lock gets it now. Its write is one statement with its
      // outcome kept for the key: it commits, or not, whole; its client was told E503 either way.
      await admin.query('ROLLBACK');

      await proxy.up();
      await waitForRecovery(server.origin, token);
      // The client's retry with the same key applies the write once, whichever it was.
      const retried = bodyOf(await request(server.origin, { path: '/v1/tasks', headers, body }), taskSchema);
      const replayed = bodyOf(await request(server.origin, { path: '/v1/tasks', headers, body }), taskSchema);
      expect(replayed).toEqual(retried);
      expect(retried.rev).toBe(1);
      expect(
        bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema).entries,
      ).toEqual([retried]);
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toBe('');
    });

    it('POSTs in flight at the cut answer 200 and are stored, or E503, and a retry with their Idempotency-Key applies each once', async () => {
      const { proxy, server, admin, token, accountId } = await setUp((target) => SwitchableProxy.start(target));
      const auth = oauth(token);

      interface Sent {
        readonly key: string;
        readonly body: { readonly id: string; readonly title: string };
        readonly status: number;
        readonly ms: number;
        readonly answer: HttpResponse;
      }
      const sent: Sent[] = [];
      let cut = false;
      const writer = async (name: string): Promise<void> => {
        const client = new KeepAliveClient(server.origin);
        try {
          // Writes until one is answered after the cut: all in flight then are among them.
          for (let serial = 1; ; serial++) {
            const key = `${name}-${serial}`;
            const body = { id: key, title: `burst ${key}` };
            const afterCut = cut;
            const { response, ms } = await timed(
              client.request({ path: '/v1/tasks', headers: { ...auth, 'idempotency-key': key }, body }),
            );
            sent.push({ key, body, status: response.status, ms, answer: response });
            if (afterCut) return;
          }
        } finally {
          client.close();
        }
      };
      const writers = Promise.all(Array.from({ length: BURST_WRITERS }, (_, index) => writer(`w${index}`)));
      await waitFor(() => sent.length >= 40);
      await proxy.down();
      cut = true;
      await writers;

      for (const write of sent) {
        expect(write.ms).toBeLessThan(OUTAGE_ANSWER_MS);
        if (write.status !== 200) expectUnavailable(write.answer);
      }
      expect(server.child.exitCode).toBeNull();

      await proxy.up();
      await waitForRecovery(server.origin, token);

      const headRev = async (): Promise<number> =>
        Number(
          (await admin.query<{ rev: string }>('SELECT rev FROM accounts WHERE id = $1', [accountId])).rows[0]?.rev,
        );
      let storedDespite503 = 0;
      let notStored = 0;
      for (const write of sent) {
        const stored = await request(server.origin, { path: `/v1/tasks/${write.key}`, headers: auth });
        if (write.status === 200) {
          // Answered 200: stored, as answered.
          expect(bodyOf(stored, taskSchema)).toEqual(bodyOf(write.answer, taskSchema));
          continue;
        }
        // Answered E503: the client retries with the same key. When the first attempt was in fact
        // committed (the cut came between COMMIT and its acknowledgement), the retry is answered
        // from the kept answer and changes nothing; otherwise it is done now, once.
        const head = await headRev();
        const retry = bodyOf(
          await request(server.origin, {
            path: '/v1/tasks',
            headers: { ...auth, 'idempotency-key': write.key },
            body: write.body,
          }),
          taskSchema,
        );
        if (stored.status === 200) {
          storedDespite503 += 1;
          expect(retry).toEqual(bodyOf(stored, taskSchema));
          expect(await headRev()).toBe(head);
        } else {
          notStored += 1;
          expect(bodyOf(stored, errorSchema, 400).retcode).toBe('E007');
          expect(retry.rev).toBe(head + 1);
        }
      }
      const answered200 = sent.filter((write) => write.status === 200).length;
      console.log(
        'POSTs around the cut',
        JSON.stringify({
          sent: sent.length,
          answered200,
          answeredE503: sent.length - answered200,
          notStored,
          storedDespite503,
        }),
      );
      expect(sent.length - answered200).toBeGreaterThanOrEqual(BURST_WRITERS);

      // Every write is stored exactly once, under its own rev.
      const listed = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
      expect(listed.entries.map((task) => task.id).sort()).toEqual(sent.map((write) => write.key).sort());
      expect(new Set(listed.entries.map((task) => task.rev)).size).toBe(sent.length);
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toBe('');
    });

    it('a long listing being streamed when the connection is cut ends broken, never as a shorter whole answer', async () => {
      const { proxy, server, admin, token, accountId } = await setUp((target) => SwitchableProxy.start(target));
      const auth = oauth(token);
      // Written straight into the tables: far more than one answer's head and one snapshot batch.
      const tasks = 4_000;
      await admin.query(
        `INSERT INTO tasks (account_id, id, title, notes, attribute, all_day, tags, priority, created, updated, rev)
       SELECT $1, 'bulk-' || n, 'bulk ' || n, repeat('n', 4000), 'inbox', false, '{}', 0, n, n, n
       FROM generate_series(1, $2::int) AS n`,
        [accountId, tasks],
      );
      await admin.query('UPDATE accounts SET rev = $2, last_updated = $2 WHERE id = $1', [accountId, tasks]);

      // The client takes the answer's first bytes and then stops reading, so the server's snapshot
      // stays open between batches.
      const body: Buffer[] = [];
      const answer = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const get = http.get(new URL('/v1/tasks', server.origin), { headers: auth, agent: false }, resolve);
        get.on('error', reject);
      });
      expect(answer.statusCode).toBe(200);
      const ended = new Promise<'complete' | 'broken'>((resolve) => {
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => resolve('complete'));
        answer.on('aborted', () => resolve('broken'));
        answer.on('error', () => resolve('broken'));
      });
      answer.pause();
      await sleep(300);
      await proxy.down();
      answer.resume();
      const outcome = await ended;
      const text = Buffer.concat(body).toString('utf8');
      let whole = true;
      try {
        JSON.parse(text);
      } catch {
        whole = false;
      }
      console.log('listing cut mid-stream', JSON.stringify({ outcome, bytes: text.length, parsesAsJson: whole }));
      // Some 17 MB, more than the socket buffers hold: the cut comes while batches remain to be
      // read. The answer ends broken (the connection cut, the JSON unterminated), so the client knows
      // to ask again; it never looks like a whole answer with entries missing.
      expect(outcome).toBe('broken');
      expect(whole).toBe(false);

      await proxy.up();
      await waitForRecovery(server.origin, token);
      const listed = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
      expect(listed.entries).toHaveLength(tasks);
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toBe('');
    });

    it('a POST whose COMMIT the database ran but whose acknowledgement was lost answers E503; its retry with the Idempotency-Key is answered from the kept answer', async () => {
      const { proxy, server, admin, token, accountId } = await setUp((target) => CommitCutProxy.start(target));
      const auth = oauth(token);
      const headRev = async (): Promise<number> =>
        Number(
          (await admin.query<{ rev: string }>('SELECT rev FROM accounts WHERE id = $1', [accountId])).rows[0]?.rev,
        );
      // No client-made id: a blind retry would make a second task.
      const body = { title: 'committed, but nobody was told' };
      const headers = { ...auth, 'idempotency-key': 'lost-ack' };

      const cut = proxy.cutAfterNextCommit();
      const { response, ms } = await timed(request(server.origin, { path: '/v1/tasks', headers, body }));
      await cut;
      // The service cannot tell a COMMIT that was lost from one whose answer was: it says E503.
      expectUnavailable(response);
      expect(ms).toBeLessThan(OUTAGE_ANSWER_MS);

      // It was committed, with its answer kept for the key in the same transaction.
      const stored = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema).entries;
      expect(stored.map((task) => [task.title, task.rev])).toEqual([[body.title, 1]]);
      expect(await headRev()).toBe(1);
      // So the client's retry with the same key is answered with the first answer and changes nothing.
      const retry = bodyOf(await request(server.origin, { path: '/v1/tasks', headers, body }), taskSchema);
      expect(retry).toEqual(stored[0]);
      expect(await headRev()).toBe(1);
      expect(
        bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema).entries,
      ).toEqual(stored);
      expect(server.child.exitCode).toBeNull();
      expect(server.stderr()).toBe('');
    });
  });
}

outageSuite('serve on PostgreSQL when the database goes away and comes back', false);
outageSuite('serve through PgBouncer in transaction mode when the database behind it goes away and comes back', true);
