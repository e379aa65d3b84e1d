/**
 * Secrets (issue #6, 5). Tokens are stored only as SHA-256 hashes: the token text is in no byte
 * of the SQLite files and in no row of any PostgreSQL table, and never in the log. Every bad
 * credential (unknown, one character off, a prefix, revoked, expired) takes the same path, one
 * lookup by hash, and gets the same answer, so timing or answers cannot tell a near miss from a
 * stranger. `X-Content-Type-Options: nosniff` and no `X-Powered-By` over HTTPS too. (TLS 1.2 as
 * the minimum is proven in test/e2e/tls.test.ts: a TLS 1.1 handshake is refused.)
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { microsFromMillis } from '../../src/domain/time.js';
import { secretKeyOf } from '../../src/service/secrets.js';
import { SQLITE_FILE_NAME } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { createToken, newAccount } from '../e2e/support/accounts.js';
import { oauth, request, type HttpResponse } from '../e2e/support/http.js';
import { cleanUpProcesses, makeTempDir, runCli, startServe, type ServeProcess } from '../e2e/support/processes.js';
import { call, ENGINES, startHarness } from '../support/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { reportFigures } from './support/figures.js';

/** The names of the store's methods (its other members are plain values). */
type StoreMethod = { [K in keyof Store]: Store[K] extends (...args: never[]) => unknown ? K : never }[keyof Store];

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Uses every way a token travels: header, query parameter, idempotent POST, a refused POST, revocation. */
async function useTokens(server: ServeProcess, write: string, read: string): Promise<void> {
  const statuses: number[] = [];
  const answers: HttpResponse[] = [
    await request(server.origin, { path: '/v1/tasks', headers: oauth(write), body: { title: 'secret holder' } }),
    await request(server.origin, {
      path: '/v1/tasks',
      headers: { ...oauth(write), 'idempotency-key': 'k1' },
      body: { title: 'again' },
    }),
    await request(server.origin, { path: `/v1/tasks?access_token=${read}` }),
    await request(server.origin, { path: `/v1/tasks?access_token=${write}&limit=1` }),
    await request(server.origin, { path: '/v1/tasks', headers: oauth(read), body: { title: 'refused: read scope' } }),
    await request(server.origin, { path: '/v1/tasks', headers: { authorization: `Bearer ${write}x` } }),
  ];
  for (const answer of answers) statuses.push(answer.status);
  expect(statuses).toEqual([200, 200, 200, 200, 403, 401]);
}

/** Every file the store keeps in the data folder (the database, its WAL and shared memory). */
async function storeFiles(dataDir: string): Promise<Buffer> {
  const names = (await readdir(dataDir)).filter((name) => name.startsWith(SQLITE_FILE_NAME));
  expect(names).toContain(SQLITE_FILE_NAME);
  return Buffer.concat(await Promise.all(names.map((name) => readFile(path.join(dataDir, name)))));
}

describe('secrets', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    await cleanUpProcesses();
    await Promise.all(databases.splice(0).map((database) => database.drop()));
  });

  it(
    'SQLite: keeps tokens as SHA-256 hashes only; the token text is in no byte of the files and not in the log',
    { timeout: 60_000 },
    async () => {
      const dataDir = await makeTempDir('secrets');
      const write = await newAccount({ dataDir }, 'keeper');
      const read = await createToken({ dataDir }, 'keeper', ['--scope', 'read']);
      const revoked = await createToken({ dataDir }, 'keeper');
      expect((await runCli(['token', 'revoke', revoked, '--data-dir', dataDir])).code).toBe(0);
      const server = await startServe({ dataDir, http: true });
      await useTokens(server, write, read);

      const bytes = await storeFiles(dataDir);
      for (const token of [write, read, revoked]) {
        expect(bytes.includes(Buffer.from(token, 'utf8')), 'a token in the SQLite files').toBe(false);
        // The scan does see what is there: the hash is stored as text.
        expect(bytes.includes(Buffer.from(sha256(token), 'utf8'))).toBe(true);
      }
      const db = new Database(path.join(dataDir, SQLITE_FILE_NAME), { readonly: true, fileMustExist: true });
      try {
        const rows = db.prepare('SELECT * FROM tokens').all();
        expect(rows).toHaveLength(3);
        const text = JSON.stringify(rows);
        for (const token of [write, read, revoked]) {
          expect(text).not.toContain(token);
          expect(text).toContain(`"hash":"${sha256(token)}"`);
        }
      } finally {
        db.close();
      }
      expect((await server.stop()).code).toBe(0);
      const log = server.stdout() + server.stderr();
      expect(log).toContain('"msg":"response"');
      for (const token of [write, read, revoked]) expect(log.includes(token), 'a token in the log').toBe(false);
      reportFigures('secrets (sqlite)', { tokens: 3, storeBytesScanned: bytes.length, logBytesScanned: log.length });
    },
  );

  it(
    'PostgreSQL: keeps tokens as SHA-256 hashes only; no row of any table holds the token text',
    { timeout: 60_000 },
    async () => {
      const database = await createTestDatabase();
      databases.push(database);
      const dataDir = await makeTempDir('secrets-pg');
      const store = { dataDir, databaseUrl: database.url };
      const write = await newAccount(store, 'keeper');
      const read = await createToken(store, 'keeper', ['--scope', 'read']);
      const server = await startServe({ dataDir, http: true, databaseUrl: database.url });
      await useTokens(server, write, read);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      let rowsScanned = 0;
      try {
        const tables = await client.query<{ table_name: string }>(
          "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
        );
        expect(tables.rows.map((row) => row.table_name)).toContain('tokens');
        for (const { table_name: table } of tables.rows) {
          // Table names come from the catalogue, quoted as identifiers.
          const rows = await client.query<{ row: string }>(
            `SELECT t::text AS row FROM "${table.replaceAll('"', '""')}" t`,
          );
          rowsScanned += rows.rows.length;
          for (const { row } of rows.rows) {
            for (const token of [write, read]) expect(row.includes(token), `a token in ${table}`).toBe(false);
          }
        }
        const hashes = await client.query<{ hash: string }>('SELECT hash FROM tokens ORDER BY hash');
        expect(hashes.rows.map((row) => row.hash)).toEqual([sha256(write), sha256(read)].sort());
      } finally {
        await client.end();
      }
      // Stopped first, as above: the log is written asynchronously, and its last lines count too.
      expect((await server.stop()).code).toBe(0);
      const log = server.stdout() + server.stderr();
      expect(log).toContain('"msg":"response"');
      for (const token of [write, read]) expect(log.includes(token), 'a token in the log').toBe(false);
      reportFigures('secrets (postgres)', { tokens: 2, rowsScanned });
    },
  );

  it.each(ENGINES)(
    'on %s, takes every bad credential down one path: one lookup by hash, one answer',
    { timeout: 60_000 },
    async (engine) => {
      const harness = await startHarness(engine);
      try {
        const user = await harness.newUser();
        const account = await harness.store.findAccount(user.username);
        if (account === undefined) throw new Error('no account');
        const revoked = await harness.accounts.createToken(user.username, 'write', 'revoked', null);
        await harness.accounts.revokeToken(revoked);
        const expired = randomBytes(32).toString('base64url');
        await harness.store.insertToken({
          hash: sha256(expired),
          accountId: account.id,
          scope: 'write',
          name: 'expired',
          expiresAt: microsFromMillis(Date.now() - 60_000),
        });
        const bad = {
          unknown: randomBytes(32).toString('base64url'),
          'one character off': user.token.slice(0, -1) + (user.token.endsWith('A') ? 'B' : 'A'),
          prefix: user.token.slice(0, 16),
          extended: `${user.token}A`,
          revoked,
          expired,
        };

        // Every method of the store is watched: a bad credential may cost exactly one findToken.
        const store = harness.store;
        const isMethod = (name: string): name is StoreMethod =>
          name !== 'constructor' && typeof Reflect.get(store, name) === 'function';
        const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(store)).filter(isMethod);
        const spies = methods.map((name) => [name, vi.spyOn(store, name)] as const);
        const answers: string[] = [];
        try {
          for (const [what, credential] of Object.entries(bad)) {
            for (const spy of spies) spy[1].mockClear();
            const answer = await call(harness.app, { url: '/v1/tasks', token: credential });
            expect(answer.status, what).toBe(401);
            expect(answer.headers['www-authenticate'], what).toBe('Bearer realm="task-service"');
            answers.push(answer.text);
            const calls = spies
              .filter(([, spy]) => spy.mock.calls.length > 0)
              .map(([name, spy]) => [name, spy.mock.calls] as const);
            expect(calls, what).toEqual([['findToken', [[secretKeyOf(credential)]]]]);
          }
          // The valid token takes the same first step.
          for (const spy of spies) spy[1].mockClear();
          expect((await call(harness.app, { url: '/v1/settings', token: user.token })).status).toBe(200);
          expect(spies.find(([name]) => name === 'findToken')?.[1].mock.calls).toEqual([
            [{ hash: sha256(user.token), accountId: account.id }],
          ]);
        } finally {
          vi.restoreAllMocks();
        }
        // Byte for byte the same answer, whatever was wrong with the credential.
        expect(new Set(answers).size).toBe(1);
        reportFigures(`token lookup (${engine})`, {
          badCredentials: Object.keys(bad).length,
          storeMethodsWatched: methods.length,
          distinctAnswers: new Set(answers).size,
        });
      } finally {
        await harness.close();
      }
    },
  );

  it(
    'sends nosniff and no X-Powered-By over HTTPS too, on successes and errors alike',
    { timeout: 60_000 },
    async () => {
      const dataDir = await makeTempDir('secrets-tls');
      const token = await newAccount({ dataDir }, 'tls');
      const server = await startServe({ dataDir });
      const ca = await readFile(path.join(dataDir, 'tls-cert.pem'), 'utf8');
      const answers = [
        await request(server.origin, { path: '/healthz', ca }),
        await request(server.origin, { path: '/v1/tasks', headers: oauth(token), ca }),
        await request(server.origin, {
          path: '/v1/tasks',
          headers: { ...oauth(token), 'accept-encoding': 'gzip' },
          body: Array.from({ length: 30 }, (_u, i) => ({ title: `t${i}` })),
          ca,
        }),
        await request(server.origin, { path: '/v1/tasks', ca }),
        await request(server.origin, { path: '/v1/nope', headers: oauth(token), ca }),
        await request(server.origin, { path: '/v1/tasks', method: 'PUT', headers: oauth(token), ca }),
        await request(server.origin, {
          path: '/v1/tasks',
          headers: { ...oauth(token), 'content-type': 'text/plain' },
          body: 'x',
          ca,
        }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 401, 400, 400, 400]);
      for (const answer of answers) {
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['x-powered-by']).toBeUndefined();
        expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      }
    },
  );
});
