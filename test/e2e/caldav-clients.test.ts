import { execFile, spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { addUser, createToken, type StoreArgs } from './support/accounts.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  type ServeProcess,
} from './support/processes.js';

/**
 * Real CalDAV clients against the real `serve`: vdirsyncer with todoman, and the python3-caldav
 * library (Debian's packages, installed by .ci/run), each through a whole flow; and two serve
 * processes on one PostgreSQL, where a change through CalDAV on one shows in /v1 on the other.
 */

const run = promisify(execFile);

/** Debian's python, which has the caldav module (the python first on PATH may be another one). */
const PYTHON = '/usr/bin/python3';
const PYTHON_FLOW = fileURLToPath(new URL('./caldav/python-caldav-flow.py', import.meta.url));

const wireTask = z.looseObject({
  id: z.string(),
  title: z.string(),
  completed: z.string().nullable(),
  deleted: z.string().nullable(),
  tags: z.array(z.string()),
  priority: z.number(),
  project_id: z.string().nullable(),
});
const taskList = z.object({ entries: z.array(wireTask), cursor: z.string() });

async function v1(server: ServeProcess, token: string, method: 'GET' | 'POST', pathAndQuery: string, body?: unknown) {
  const response = await fetch(`${server.origin}${pathAndQuery}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, pathAndQuery).toBe(200);
  return (await response.json()) as unknown;
}

/** Runs a command that asks questions, answering them with `input`; resolves with what it printed. */
function answering(command: string, args: readonly string[], input: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`));
    });
    child.stdin.end(input);
  });
}

async function newAccount(store: StoreArgs, name: string): Promise<{ username: string; token: string }> {
  const username = `${name}${process.pid}`;
  await addUser(store, username);
  return { username, token: await createToken(store, username, ['--name', 'vdirsyncer']) };
}

afterEach(async () => {
  await cleanUpProcesses();
});

describe('vdirsyncer and todoman', () => {
  it(
    'discover, sync both ways, edit and complete, and resolve a conflict',
    async () => {
      const dataDir = await makeTempDir('caldav-vdir');
      const server = await startServe({ dataDir, http: true });
      const { username, token } = await newAccount({ dataDir }, 'vdir');
      await v1(server, token, 'POST', '/v1/tasks', { title: 'Buy milk', tags: ['shop'] });
      await v1(server, token, 'POST', '/v1/tasks', { title: 'Plan the trip', project: 'Holidays' });

      const home = await makeTempDir('caldav-vdir-home');
      const local = path.join(home, 'calendars');
      await mkdir(local);
      const config = path.join(home, 'vdirsyncer.conf');
      const writeConfig = (resolution: string) =>
        writeFile(
          config,
          [
            '[general]',
            `status_path = "${path.join(home, 'status')}/"`,
            '[pair tasks]',
            'a = "local"',
            'b = "server"',
            'collections = ["from b"]',
            ...(resolution === '' ? [] : [`conflict_resolution = "${resolution}"`]),
            '[storage local]',
            'type = "filesystem"',
            `path = "${local}/"`,
            'fileext = ".ics"',
            '[storage server]',
            'type = "caldav"',
            `url = "${server.origin}/"`,
            `username = "${username}"`,
            `password = "${token}"`,
            'item_types = ["VTODO"]',
            '',
          ].join('\n'),
        );
      await writeConfig('');
      const env = { ...process.env, HOME: home };
      const vdirsyncer = (...args: string[]) =>
        run('vdirsyncer', ['-c', config, ...args], { env, timeout: 30_000 }).catch((error: unknown) => {
          throw new Error(`vdirsyncer ${args.join(' ')} failed: ${String(error)}`);
        });
      const todomanConfig = path.join(home, 'todoman.py');
      await writeFile(
        todomanConfig,
        `path = "${local}/*"\ndate_format = "%Y-%m-%d"\ntime_format = "%H:%M"\ndefault_list = "inbox"\n`,
      );
      const todoman = async (...args: string[]) =>
        (await run('todoman', ['--config', todomanConfig, ...args], { env, timeout: 30_000 })).stdout;
      const todos = async (): Promise<{ id: number; summary: string; completed: boolean; list: string }[]> =>
        z
          .array(z.looseObject({ id: z.number(), summary: z.string(), completed: z.boolean(), list: z.string() }))
          .parse(JSON.parse(await todoman('--porcelain', 'list', '--status', 'ANY')));

      // Discovery from the server's root finds /.well-known/caldav, the principal, the home, both collections.
      const discovered = await answering('vdirsyncer', ['-c', config, 'discover'], 'y\ny\ny\n', env);
      expect(discovered).toContain('"inbox" ("Inbox")');
      expect(discovered).toContain('("Holidays")');
      await vdirsyncer('sync');
      expect((await readdir(local)).sort()).toHaveLength(2);
      expect((await todos()).map((todo) => todo.summary).sort()).toEqual(['Buy milk', 'Plan the trip']);

      // A task made in todoman reaches /v1, with its tag.
      await todoman('new', '-l', 'inbox', 'Call the plumber');
      await vdirsyncer('sync');
      const afterNew = taskList.parse(await v1(server, token, 'GET', '/v1/tasks'));
      expect(afterNew.entries.map((task) => task.title).sort()).toEqual([
        'Buy milk',
        'Call the plumber',
        'Plan the trip',
      ]);

      // Edited and completed in todoman; a /v1 change to another task comes back the other way.
      const plumber = (await todos()).find((todo) => todo.summary === 'Call the plumber');
      await todoman('edit', String(plumber?.id), '--priority', 'high', '--location', 'Kitchen sink');
      await todoman('done', String(plumber?.id));
      const milk = afterNew.entries.find((task) => task.title === 'Buy milk');
      await v1(server, token, 'POST', '/v1/tasks', { id: milk?.id, title: 'Buy oat milk' });
      await vdirsyncer('sync');
      const synced = taskList.parse(await v1(server, token, 'GET', '/v1/tasks'));
      const plumberTask = synced.entries.find((task) => task.title === 'Call the plumber');
      expect(plumberTask?.completed).not.toBeNull();
      expect(plumberTask?.priority).toBe(3);
      const served = await fetch(`${server.origin}/dav/calendars/${username}/inbox/`, {
        method: 'REPORT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/xml' },
        body:
          '<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop>' +
          '<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:prop-filter name="LOCATION">' +
          '<c:text-match>kitchen</c:text-match></c:prop-filter></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>',
      });
      // The location todoman wrote, a property no field takes, is kept and found by a filter on it.
      expect(await served.text()).toContain('LOCATION:Kitchen sink');
      expect((await todos()).map((todo) => todo.summary).sort()).toEqual([
        'Buy oat milk',
        'Call the plumber',
        'Plan the trip',
      ]);

      // Both sides change one task: vdirsyncer refuses to guess, then the server's side wins when told.
      const trip = synced.entries.find((task) => task.title === 'Plan the trip');
      const localTrip = (await todos()).find((todo) => todo.summary === 'Plan the trip');
      await todoman('edit', String(localTrip?.id), '--priority', 'low');
      await v1(server, token, 'POST', '/v1/tasks', { id: trip?.id, title: 'Plan the trip (server)' });
      await expect(vdirsyncer('sync')).rejects.toThrow(/both|conflict/i);
      await writeConfig('b wins');
      await vdirsyncer('sync');
      expect((await todos()).map((todo) => todo.summary)).toContain('Plan the trip (server)');
      // And a deletion on the server removes the local file.
      await v1(server, token, 'POST', '/v1/tasks', { id: milk?.id, deleted: '2026-11-01T00:00:00Z' });
      await vdirsyncer('sync');
      expect((await todos()).map((todo) => todo.summary).sort()).toEqual([
        'Call the plumber',
        'Plan the trip (server)',
      ]);
    },
    E2E_TEST_TIMEOUT_MS * 3,
  );
});

describe('python3-caldav', () => {
  it(
    'discovers, saves, searches open tasks, completes, and syncs by token',
    async () => {
      const dataDir = await makeTempDir('caldav-python');
      const server = await startServe({ dataDir, http: true });
      const { username, token } = await newAccount({ dataDir }, 'python');
      const { stdout } = await run(PYTHON, [PYTHON_FLOW, `${server.origin}/dav/`, username, token], {
        timeout: 30_000,
      });
      const seen = z
        .object({
          calendars: z.array(z.string()),
          first_sync: z.array(z.string()),
          open_before: z.array(z.string()),
          open_after: z.array(z.string()),
          all_after: z.array(z.string()),
          changed: z.array(z.string()),
          kept: z.string(),
          status: z.string(),
        })
        .parse(JSON.parse(stdout));
      expect(seen).toMatchObject({
        calendars: ['Inbox'],
        first_sync: ['python-caldav-1.ics'],
        open_before: ['From python-caldav'],
        open_after: [],
        all_after: ['From python-caldav'],
        changed: ['python-caldav-1.ics'],
        kept: 'kept',
        status: 'COMPLETED',
      });
      const [task] = taskList.parse(await v1(server, token, 'GET', '/v1/tasks')).entries;
      expect(task).toMatchObject({ id: 'python-caldav-1', title: 'From python-caldav' });
      expect(task?.completed).not.toBeNull();
    },
    E2E_TEST_TIMEOUT_MS,
  );
});

describe('two serve processes on one PostgreSQL', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  it(
    'a change through CalDAV on one is the next /v1 change on the other, and the reverse, exactly',
    async () => {
      const dataDir = await makeTempDir('caldav-pg');
      const store = { dataDir, databaseUrl: database.url };
      const { username, token } = await newAccount(store, 'pg');
      const [first, second] = await Promise.all([
        startServe({ dataDir, http: true, databaseUrl: database.url }),
        startServe({ dataDir, http: true, databaseUrl: database.url }),
      ]);
      if (first === undefined || second === undefined) throw new Error('two servers');
      const auth = `Basic ${Buffer.from(`${username}:${token}`).toString('base64')}`;
      const inbox = `/dav/calendars/${username}/inbox/`;
      const { cursor } = taskList.parse(await v1(second, token, 'GET', '/v1/tasks?limit=1'));
      const put = await fetch(`${first.origin}${inbox}across.ics`, {
        method: 'PUT',
        headers: { authorization: auth, 'content-type': 'text/calendar' },
        body: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:across\r\nSUMMARY:Across processes\r\nEND:VTODO\r\nEND:VCALENDAR\r\n',
      });
      expect(put.status).toBe(201);
      const seen = taskList.parse(await v1(second, token, 'GET', `/v1/tasks?cursor=${cursor}`));
      expect(seen.entries.map((task) => task.id)).toEqual(['across']);

      const syncBody = (syncToken: string) =>
        `<d:sync-collection xmlns:d="DAV:"><d:sync-token>${syncToken}</d:sync-token><d:sync-level>1</d:sync-level><d:prop><d:getetag/></d:prop></d:sync-collection>`;
      const report = async (server: ServeProcess, syncToken: string) => {
        const response = await fetch(`${server.origin}${inbox}`, {
          method: 'REPORT',
          headers: { authorization: auth, 'content-type': 'application/xml', depth: '1' },
          body: syncBody(syncToken),
        });
        expect(response.status).toBe(207);
        return response.text();
      };
      const initial = await report(first, '');
      const syncToken = /<d:sync-token>([^<]+)<\/d:sync-token>/.exec(initial)?.[1] ?? '';
      await v1(second, token, 'POST', '/v1/tasks', { id: 'across', title: 'Changed on the other' });
      await v1(second, token, 'POST', '/v1/tasks', { title: 'Made on the other' });
      const changes = await report(first, syncToken);
      expect(changes.match(/<d:response>/g)).toHaveLength(2);
      expect(changes).toContain(`${inbox}across.ics`);
      const fetched = await fetch(`${first.origin}${inbox}across.ics`, { headers: { authorization: auth } });
      expect(await fetched.text()).toContain('SUMMARY:Changed on the other');
    },
    E2E_TEST_TIMEOUT_MS,
  );
});
