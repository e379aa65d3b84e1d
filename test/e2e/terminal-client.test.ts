/**
 * The terminal client as a real process (`task-service login|add|ls|done|sync`) against a real
 * `task-service serve`, its files in a temporary $XDG_CONFIG_HOME.
 */
import { stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskServiceClient } from '../../src/client/index.js';
import { newAccount } from './support/accounts.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startServe,
  type CliResult,
} from './support/processes.js';

describe('the terminal client against a real serve process', { timeout: E2E_TEST_TIMEOUT_MS * 2 }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  async function setUp() {
    const dataDir = await makeTempDir('term');
    const configHome = await makeTempDir('term-config');
    const server = await startServe({ dataDir, http: true });
    const token = await newAccount({ dataDir }, 'terminal', ['--timezone', 'Asia/Tokyo']);
    const client = (args: readonly string[]): Promise<CliResult> =>
      runCli(args, { env: { XDG_CONFIG_HOME: configHome } });
    return { server, token, configHome, client };
  }

  function ok(result: CliResult): string {
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  }

  it('logs in with a pasted token, adds, lists, completes and syncs', async () => {
    const { server, token, configHome, client } = await setUp();
    const folder = path.join(configHome, 'task-service');

    const notYet = await client(['ls']);
    expect(notYet.code).toBe(2);
    expect(notYet.stderr).toContain('not logged in');

    const refused = await client(['login', server.origin, '--token', 'not-a-token']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('E401');

    const fromStdin = await runCli(['login', server.origin, '--token', '-'], {
      env: { XDG_CONFIG_HOME: configHome },
      stdin: `${token}\n`,
    });
    expect(ok(fromStdin)).toBe(`logged in to ${server.origin} as terminal (Asia/Tokyo)\n`);
    const credentials = path.join(folder, 'credentials.json');
    expect((await stat(credentials)).mode & 0o777).toBe(0o600);
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(credentials, 'utf8'))).toEqual({ url: server.origin, token });

    const added = ok(await client(['add', 'Buy milk & "eggs" #Home @shop *food !2 ^2030-01-15']));
    expect(added).toMatch(/^added \S+ {2}Buy milk & "eggs" {2}#Home {2}@shop {2}\*food {2}!2 {2}\^2030-01-15\n$/);
    ok(await client(['add', 'Call <Tom> ~next']));
    ok(await client(['add', 'Call Jerry']));
    const json = JSON.parse(ok(await client(['add', 'Read a book ^someday', '--json'])));
    expect(json).toMatchObject({ title: 'Read a book', attribute: 'noplan', start_at: null });

    const listed = JSON.parse(ok(await client(['ls', '--json'])));
    expect(listed.map((task: { title: string }) => task.title).sort()).toEqual([
      'Buy milk & "eggs"',
      'Call <Tom>',
      'Call Jerry',
      'Read a book',
    ]);
    const scheduled = JSON.parse(ok(await client(['ls', 'scheduled', '--json'])));
    // 2030-01-15 in Tokyo starts at 15:00 UTC the day before.
    expect(scheduled).toMatchObject([
      {
        title: 'Buy milk & "eggs"',
        project: 'Home',
        context: 'shop',
        tags: ['food'],
        priority: 2,
        start_at: '2030-01-14T15:00:00.000Z',
      },
    ]);
    expect(ok(await client(['ls', 'next']))).toMatch(/^\S+ {2}Call <Tom>\n$/);
    expect(
      ok(await client(['ls', 'inbox']))
        .trim()
        .split('\n'),
    ).toHaveLength(1);
    expect(ok(await client(['ls', '--project', 'home'])).split('\n')[0]).toContain('Buy milk');
    expect(ok(await client(['ls', '--context', '@shop'])).split('\n')[0]).toContain('Buy milk');
    expect(ok(await client(['ls', 'someday']))).toContain('Read a book');

    const ambiguous = await client(['done', 'call']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('names 2 open tasks');
    expect(ok(await client(['done', 'call j']))).toMatch(/^done \S+ {2}Call Jerry {2}done \d{4}-\d{2}-\d{2}\n$/);
    expect(ok(await client(['ls']))).not.toContain('Call Jerry');
    expect(ok(await client(['ls', 'completed']))).toContain('Call Jerry');
    const missing = await client(['done', 'nothing like this']);
    expect(missing.code).toBe(2);

    // The first sync copies everything; the next says only what changed elsewhere.
    const first = ok(await client(['sync']));
    expect(first).toContain('+ Buy milk & "eggs"');
    expect(first).toContain('4 added, 0 changed, 0 removed: 4 tasks');
    const copy = path.join(folder, 'tasks.json');
    expect((await stat(copy)).mode & 0o777).toBe(0o600);
    expect(ok(await client(['sync']))).toBe('up to date: 4 tasks\n');

    const elsewhere = new TaskServiceClient({ baseUrl: server.origin, token });
    const [book] = (await elsewhere.tasks.all()).filter((task) => task.title === 'Read a book');
    await elsewhere.tasks.save({ title: 'From the web' });
    await elsewhere.tasks.save({ id: book?.id ?? '', deleted: new Date() });
    const changes = JSON.parse(ok(await client(['sync', '--json'])));
    expect(changes.added.map((task: { title: string }) => task.title)).toEqual(['From the web']);
    expect(changes.removed.map((task: { title: string }) => task.title)).toEqual(['Read a book']);
    expect(changes).toMatchObject({ restarted: false, total: 4, changed: [] });
  });

  it('shows control characters of a title as visible escapes, and says how to call it', async () => {
    const { server, token, client } = await setUp();
    ok(await client(['login', `${server.origin}/`, '--token', token]));
    await new TaskServiceClient({ baseUrl: server.origin, token }).tasks.save({ title: 'red \u001b[31malert' });
    expect(ok(await client(['ls']))).toMatch(/red \\u001b\[31malert\n$/);
    const usage = await client(['ls', 'elsewhere']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: task-service ls');
    const help = ok(await runCli(['--help']));
    expect(help).toContain('task-service login <url> --token <token|->');
  });
});
