import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TaskServiceClient } from '../../src/client/index.js';
import { createToken, newAccount, addUser, storeFlags, TOKEN_OUTPUT, type StoreArgs } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  REPO_ROOT,
  runCli,
  runNode,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, expectError, taskSchema, WIRE_DATE_TIME } from './support/wire.js';

// Every admin command here runs against the data folder of a `serve` that is running meanwhile
// (API.md section 8: admin commands work while it runs).
describe(
  'task-service admin commands (while serve runs on the same data folder)',
  { timeout: E2E_TEST_TIMEOUT_MS },
  () => {
    let store: StoreArgs;
    let server: ServeProcess;

    beforeAll(async () => {
      store = { dataDir: await makeTempDir('cli') };
      server = await startServe({ dataDir: store.dataDir, http: true });
    });

    afterAll(async () => {
      await cleanUpProcesses();
    });

    const list = (token: string) => request(server.origin, { path: '/v1/tasks', headers: oauth(token) });
    /** The service as a client sees it, through the SDK: these tests are about the commands, not the wire. */
    const sdk = (token: string) => new TaskServiceClient({ baseUrl: server.origin, token, retry: { retries: 0 } });

    it('user add --timezone makes an account whose settings and dates use that zone', async () => {
      const added = await runCli(['user', 'add', 'berlin', '--timezone', 'Europe/Berlin', ...storeFlags(store)]);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toBe('');
      expect(added.stderr).toContain('berlin');

      const token = await createToken(store, 'berlin');
      const settings = await sdk(token).settings();
      expect(settings.username).toBe('berlin');
      expect(settings.timezone).toBe('Europe/Berlin');
      expect(settings.user_timezone).toMatch(/^\(GMT\+0[12]:00\) Europe\/Berlin$/);

      const task = bodyOf(
        await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: { title: 'zoned' } }),
        taskSchema,
      );
      expect(task.created).toMatch(WIRE_DATE_TIME);
      expect(task.created).toMatch(/ \+0[12]00$/);
    });

    it('user add with a bad zone or name exits non-zero with a message', async () => {
      const zone = await runCli(['user', 'add', 'nowhere', '--timezone', 'Mars/Olympus', ...storeFlags(store)]);
      expect(zone.code).not.toBe(0);
      expect(zone.stderr).toContain('Mars/Olympus');
      const name = await runCli(['user', 'add', 'no spaces', ...storeFlags(store)]);
      expect(name.code).not.toBe(0);
      expect(name.stderr).toMatch(/username/);
    });

    it('user add --password-stdin reads the password from standard input and never echoes it', async () => {
      const password = 'correct horse battery staple 9f3c';
      const added = await runCli(['user', 'add', 'withpass', '--password-stdin', ...storeFlags(store)], {
        stdin: `${password}\n`,
      });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout + added.stderr).not.toContain(password);
      expect(added.stdout + added.stderr).not.toContain('horse');
      // The account exists and works like any other.
      const token = await createToken(store, 'withpass');
      expect(await sdk(token).tasks.all()).toEqual([]);

      const empty = await runCli(['user', 'add', 'nopass', '--password-stdin', ...storeFlags(store)], { stdin: '' });
      expect(empty.code).not.toBe(0);
      expect(empty.stderr).toMatch(/password/);
    });

    it('a taken username exits non-zero with a clear message and changes nothing', async () => {
      await addUser(store, 'twice');
      const token = await createToken(store, 'twice');
      const again = await runCli(['user', 'add', 'twice', '--timezone', 'Asia/Tokyo', ...storeFlags(store)]);
      expect(again.code).not.toBe(0);
      expect(again.stdout).toBe('');
      expect(again.stderr).toMatch(/username twice is taken/);
      expect(again.stderr).not.toMatch(/\bat .*\.js:\d+/); // a message, not a stack trace
      expect((await sdk(token).settings()).timezone).toBe('UTC');
    });

    it('token create prints the token alone on standard output, a new one each time', async () => {
      await addUser(store, 'tokens');
      const first = await runCli(['token', 'create', 'tokens', '--name', 'laptop', ...storeFlags(store)]);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stdout).toMatch(TOKEN_OUTPUT);
      const second = await createToken(store, 'tokens', ['--expires-in', '30']);
      expect(first.stdout.trim()).not.toBe(second);
      expect(first.stdout.trim().length).toBeGreaterThanOrEqual(22); // at least 128 bits of base64url
      for (const token of [first.stdout.trim(), second]) expect(await sdk(token).tasks.all()).toEqual([]);

      const unknown = await runCli(['token', 'create', 'ghost', ...storeFlags(store)]);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toMatch(/no such user: ghost/);
    });

    it('a --scope read token may GET but not POST', async () => {
      await addUser(store, 'reader');
      const read = await createToken(store, 'reader', ['--scope', 'read']);
      expect(await sdk(read).tasks.all()).toEqual([]);
      await expect(sdk(read).tasks.save({ title: 'nope' })).rejects.toMatchObject({ retcode: 'E403', status: 403 });
      const bad = await runCli(['token', 'create', 'reader', '--scope', 'admin', ...storeFlags(store)]);
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe('');
    });

    it('token revoke makes the token unauthorized at once, for the running server too', async () => {
      const token = await newAccount(store, 'revoker');
      const other = await createToken(store, 'revoker');
      expect((await list(token)).status).toBe(200);
      const revoked = await runCli(['token', 'revoke', token, ...storeFlags(store)]);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toBe('');
      const after = await list(token);
      expectError(after, 401, 'E401');
      expect(after.headers['www-authenticate']).toBeDefined();
      expect((await list(other)).status).toBe(200);

      const unknown = await runCli(['token', 'revoke', 'not-a-token-at-all', ...storeFlags(store)]);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/no such token/);
    });

    it('user disable forbids the account (E403) and leaves others alone', async () => {
      const token = await newAccount(store, 'leaver');
      const stayer = await newAccount(store, 'stayer');
      expect((await list(token)).status).toBe(200);
      const disabled = await runCli(['user', 'disable', 'leaver', ...storeFlags(store)]);
      expect(disabled.code, disabled.stderr).toBe(0);
      expectError(await list(token), 403, 'E403');
      expect((await list(stayer)).status).toBe(200);

      const unknown = await runCli(['user', 'disable', 'ghost', ...storeFlags(store)]);
      expect(unknown.code).not.toBe(0);
      expect(unknown.stderr).toMatch(/no such user: ghost/);
    });

    it('migrate applies the migrations to a new data folder, and again changes nothing', async () => {
      const dataDir = await makeTempDir('migrate');
      for (let round = 0; round < 2; round += 1) {
        const migrated = await runCli(['migrate', '--data-dir', dataDir]);
        expect(migrated.code, migrated.stderr).toBe(0);
        expect(migrated.stdout).toBe('');
        expect(migrated.stderr).toContain('migrations applied');
      }
      expect(existsSync(path.join(dataDir, 'tasks.sqlite'))).toBe(true);
    });

    it('an unknown command or flag exits 2 with one line that says where the usage is', async () => {
      const unknown = await runCli(['frobnicate', ...storeFlags(store)]);
      expect(unknown.code).toBe(2);
      expect(unknown.stdout).toBe('');
      expect(unknown.stderr).toBe(
        'task-service: unknown command "frobnicate" (task-service --help lists the commands)\n',
      );

      const flag = await runCli(['user', 'add', 'x', '--colour', 'blue', ...storeFlags(store)]);
      expect(flag.code).toBe(2);
      expect(flag.stderr).toMatch(/--colour/);

      const help = await runCli(['--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: task-service <command>');
    });

    it('the command the package installs (package.json "bin") runs the built CLI', async () => {
      const manifest = z
        .object({ bin: z.object({ 'task-service': z.string() }) })
        .parse(JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')));
      const bin = path.resolve(REPO_ROOT, manifest.bin['task-service']);
      expect(existsSync(bin), `package.json bin ${bin} does not exist`).toBe(true);
      expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
      const help = await runNode([bin, '--help']);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: task-service <command>');
      expect(help.stdout).toMatch(/^ {2}serve /m);
    });
  },
);
