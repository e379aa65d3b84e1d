/**
 * A newcomer's first hour, the failing half: each ordinary mistake in starting the service or
 * running an admin command gets one line that says what is wrong and what to do, a non-zero exit
 * and no stack trace (issue #10, items 3-5). The CLI runs as a real process throughout.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { generate } from 'selfsigned';
import { afterAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../src/store/open.js';
import { createTestDatabase, TEST_DATABASE_BASE_URL } from '../support/postgres.js';
import { expectOneLine, STACK_FRAME } from './support/one-line.js';
import {
  CLI_SCRIPT,
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startServe,
} from './support/processes.js';

/** The base test database URL with another database or user in it. */
function databaseUrl(change: { database?: string; user?: string }): string {
  const url = new URL(TEST_DATABASE_BASE_URL);
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  if (change.user !== undefined) url.username = change.user;
  return url.toString();
}

/** How many tables the database's public schema has. */
async function tablesIn(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query("SELECT 1 FROM information_schema.tables WHERE table_schema = 'public'");
    return tables.rowCount ?? 0;
  } finally {
    await client.end();
  }
}

/** Someone other than root, whom file permissions apply to (the tests may run as root). */
const OTHER_USER = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

/**
 * Whether the CLI runs as that user at all: a checkout in a folder only root may enter (a clone
 * under `mktemp -d`) is out of its reach, and then the read-only case cannot be shown as root.
 */
const CLI_RUNS_AS_OTHER_USER =
  OTHER_USER === undefined ||
  spawnSync(process.execPath, [CLI_SCRIPT, '--version'], { ...OTHER_USER, timeout: 15_000 }).status === 0;

describe('start-up mistakes: one line, a non-zero exit, no stack trace', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('a second serve on a port in use says so and names --port, and makes nothing; --debug shows the stack', async () => {
    const first = await startServe({ dataDir: await makeTempDir('first'), http: true });
    const secondDir = await makeTempDir('second');
    // HTTPS (the default), so that a certificate would be made if anything were.
    const args = ['serve', '--port', String(first.port), '--data-dir', secondDir];
    const second = await runCli(args);
    expectOneLine(second, new RegExp(`port ${first.port} is in use.*another task-service running.*--port`));
    expect(second.stdout).toBe('');
    expect(await readdir(secondDir)).toEqual([]);
    const debug = await runCli([...args, '--debug']);
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(/port \d+ is in use/);
    expect(debug.stderr).toMatch(STACK_FRAME);
    expect(debug.stderr).toContain('EADDRINUSE');
    expect(await readdir(secondDir)).toEqual([]);

    // On PostgreSQL neither: no tables in the database, no certificate in the folder.
    const database = await createTestDatabase();
    try {
      const onPostgres = await runCli([...args, '--database-url', database.url]);
      expectOneLine(onPostgres, new RegExp(`port ${first.port} is in use`));
      expect(await tablesIn(database.url)).toBe(0);
      expect(await readdir(secondDir)).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  it('a host that is no address of this machine, or no name at all', async () => {
    const dataDir = await makeTempDir('host');
    const name = await runCli([
      'serve',
      '--http',
      '--port',
      '0',
      '--host',
      'no-such-host.invalid',
      '--data-dir',
      dataDir,
    ]);
    expectOneLine(name, /cannot listen on no-such-host\.invalid: .*--host 127\.0\.0\.1/);
    // TEST-NET-2 (RFC 5737): documentation only, never an address of this machine.
    const foreign = await runCli(['serve', '--http', '--port', '0', '--host', '198.51.100.7', '--data-dir', dataDir]);
    expectOneLine(foreign, /cannot listen on 198\.51\.100\.7: it is not an address of this machine/);
  });

  it('missing or mismatched TLS files, named', async () => {
    const dir = await makeTempDir('tls-files');
    const missing = await runCli([
      'serve',
      '--port',
      '0',
      '--data-dir',
      dir,
      '--tls-cert',
      path.join(dir, 'nope-cert.pem'),
      '--tls-key',
      path.join(dir, 'nope-key.pem'),
    ]);
    expectOneLine(missing, new RegExp(`TLS certificate file ${path.join(dir, 'nope-cert.pem')}: no such file`));

    const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, algorithm: 'sha256' });
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const certFile = path.join(dir, 'cert.pem');
    const keyFile = path.join(dir, 'other-key.pem');
    await writeFile(certFile, pems.cert);
    await writeFile(keyFile, otherKey);
    const mismatched = await runCli([
      'serve',
      '--port',
      '0',
      '--data-dir',
      dir,
      '--tls-cert',
      certFile,
      '--tls-key',
      keyFile,
    ]);
    expectOneLine(mismatched, /TLS files .*cert\.pem and .*other-key\.pem: the key does not belong to the certificate/);
    const swapped = await runCli([
      'serve',
      '--port',
      '0',
      '--data-dir',
      dir,
      '--tls-cert',
      keyFile,
      '--tls-key',
      certFile,
    ]);
    expectOneLine(swapped, /TLS files .*: they are not a PEM certificate and its PEM private key/);
  });

  it('a data folder that is a file, or that SQLite cannot make, named', async () => {
    const dir = await makeTempDir('not-a-folder');
    const file = path.join(dir, 'data');
    await writeFile(file, 'not a folder');
    expectOneLine(
      await runCli(['serve', '--http', '--port', '0', '--data-dir', file]),
      new RegExp(`data folder ${file} is not a folder`),
    );
    const inside = path.join(file, 'data');
    expectOneLine(
      await runCli(['serve', '--http', '--port', '0', '--data-dir', inside]),
      new RegExp(`data folder ${inside} `),
    );
  });

  it('a PostgreSQL database or role that does not exist, named, without the password', async () => {
    const noDatabase = await runCli([
      'serve',
      '--http',
      '--port',
      '0',
      '--database-url',
      databaseUrl({ database: 'task_service_no_such_db' }),
    ]);
    expectOneLine(noDatabase, /database "task_service_no_such_db" does not exist: create it/);
    const noRole = await runCli([
      'user',
      'add',
      'x',
      '--database-url',
      databaseUrl({ user: 'task_service_no_such_role' }).replace(
        'task_service_no_such_role@',
        'task_service_no_such_role:hunter2@',
      ),
    ]);
    const line = expectOneLine(noRole, /role "task_service_no_such_role" does not exist/);
    expect(line).not.toContain('hunter2');
  });

  it.skipIf(!CLI_RUNS_AS_OTHER_USER)(
    'a read-only data folder is refused at start, naming it, before anything listens',
    async () => {
      const parent = await makeTempDir('read-only');
      await chmod(parent, 0o755);
      const dataDir = path.join(parent, 'data');
      await mkdir(dataDir);
      const server = await startServe({ dataDir, http: true });
      await server.stop();
      await chmod(dataDir, 0o555);
      for (const name of await readdir(dataDir)) await chmod(path.join(dataDir, name), 0o444);
      try {
        const refused = await runCli(['serve', '--http', '--port', '0', '--data-dir', dataDir], {
          cwd: parent,
          ...(OTHER_USER === undefined ? {} : { user: OTHER_USER }),
        });
        expectOneLine(refused, new RegExp(`data folder ${dataDir} is read-only for this user.*write access`));
        expect(refused.stdout).not.toContain('listening');
      } finally {
        await chmod(dataDir, 0o755);
      }
    },
  );
});

describe('only serve and migrate make a store', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('an admin command run from a folder without a store says where it looked and makes nothing', async () => {
    const elsewhere = await makeTempDir('elsewhere');
    const added = await runCli(['user', 'add', 'alice'], { cwd: elsewhere });
    expectOneLine(
      added,
      new RegExp(`no task-service store at ${path.join(elsewhere, 'data', SQLITE_FILE_NAME)}: .*--data-dir`),
    );
    expect(existsSync(path.join(elsewhere, 'data'))).toBe(false);

    const typo = path.join(elsewhere, 'dta');
    for (const args of [
      ['token', 'create', 'alice'],
      ['token', 'revoke', 'abc'],
      ['user', 'disable', 'alice'],
      ['user', 'list'],
      ['user', 'enable', 'alice'],
      ['token', 'list', 'alice'],
      ['token', 'revoke', '--id', 'abc'],
      ['client', 'list'],
      ['client', 'add', 'App', '--redirect-uri', 'https://app.example/cb'],
    ]) {
      expectOneLine(await runCli([...args, '--data-dir', typo]), new RegExp(`no task-service store at ${typo}`));
    }
    expect(existsSync(typo)).toBe(false);
  });

  it('on PostgreSQL, an admin command refuses a database without the tables and makes none', async () => {
    const database = await createTestDatabase();
    try {
      const added = await runCli(['user', 'add', 'alice', '--database-url', database.url]);
      // What to do first, then why.
      const line = expectOneLine(
        added,
        /^task-service: run "task-service migrate --database-url …" first \(or start serve on it once\): PostgreSQL .*task_service_test_\w+ has no task-service tables yet$/,
      );
      expect(line).not.toContain('run this from the folder');
      expect(await tablesIn(database.url)).toBe(0);
      const migrated = await runCli(['migrate', '--database-url', database.url]);
      expect(migrated.code, migrated.stderr).toBe(0);
      expect(migrated.stderr).toMatch(/migrations applied to a new store at PostgreSQL/);
      expect((await runCli(['user', 'add', 'alice', '--database-url', database.url])).code).toBe(0);
    } finally {
      await database.drop();
    }
  });

  it('flags of another command are refused, naming whose they are', async () => {
    const dataDir = await makeTempDir('foreign-flags');
    expectOneLine(
      await runCli(['serve', '--timezone', 'Europe/Berlin', '--data-dir', dataDir]),
      /serve does not take --timezone \(it is a flag of user add\)/,
      2,
    );
    expectOneLine(
      await runCli(['serve', '--scope', 'read', '--data-dir', dataDir]),
      /serve does not take --scope \(it is a flag of token create, login\)/,
      2,
    );
    expectOneLine(
      await runCli(['user', 'add', 'x', '--port', '1', '--data-dir', dataDir]),
      /user add does not take --port \(it is a flag of serve\)/,
      2,
    );
    expect(await readdir(dataDir)).toEqual([]);
  });
});
