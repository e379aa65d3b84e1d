/**
 * The terminal client as a real process (`task-service login|add|ls|done|sync`) against a real
 * `task-service serve`, its files in a temporary $XDG_CONFIG_HOME.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TaskServiceClient } from '../../src/client/index.js';
import { newAccount, storeFlags } from './support/accounts.js';
import { addClient, addUserWithPassword } from './support/auth-server.js';
import { STACK_FRAME } from './support/one-line.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  runCli,
  startCli,
  startServe,
  type CliResult,
  type RunningCli,
} from './support/processes.js';
import { hiddenFields, locationOf, WebSession } from './support/web-session.js';

const PASSWORD = 'correct horse battery';

/** The address `login` prints for the person to open, alone on its line. */
const AUTHORIZE_LINE = /^ {2}(https?:\/\/\S+\/oauth\/authorize\?\S+)$/m;

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
    return { server, token, configHome, client, dataDir };
  }

  /** A server with an account that signs in with a password and the terminal client registered (ACCOUNTS.md: by the administrator). */
  async function setUpBrowserLogin(username: string) {
    const { server, configHome, client, dataDir } = await setUp();
    await addUserWithPassword({ dataDir }, username, PASSWORD);
    const registered = await addClient({ dataDir }, 'Terminal', ['http://127.0.0.1/callback'], ['--public']);
    // The client id as a flag, or (`env`) from TASK_SERVICE_CLIENT_ID.
    const login = (via: 'flag' | 'env' = 'flag'): RunningCli =>
      via === 'flag'
        ? startCli(['login', server.origin, '--client-id', registered.id], { env: { XDG_CONFIG_HOME: configHome } })
        : startCli(['login', server.origin], {
            env: { XDG_CONFIG_HOME: configHome, TASK_SERVICE_CLIENT_ID: registered.id },
          });
    return { server, configHome, client, dataDir, login };
  }

  /** The test as the person's browser: opens the printed address, signs in, and answers the consent page. */
  async function actAsBrowser(
    login: RunningCli,
    origin: string,
    username: string,
    decision: 'allow' | 'deny',
  ): Promise<{ back: URL; landing: Response }> {
    const [, address = ''] = await login.waitForStderr(AUTHORIZE_LINE);
    const authorize = new URL(address);
    expect(authorize.origin).toBe(origin);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const browser = new WebSession(origin);
    const toSignIn = await browser.get(`${authorize.pathname}${authorize.search}`);
    expect(toSignIn.status).toBe(302);
    const signedIn = await browser.signInAt(locationOf(toSignIn), username, PASSWORD);
    expect(signedIn.status, signedIn.text).toBe(303);
    const consent = await browser.get(locationOf(signedIn));
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('<strong>Terminal</strong>');
    const decided = await browser.post('/oauth/authorize', {
      ...hiddenFields(consent.text, '/oauth/authorize'),
      decision,
    });
    expect(decided.status).toBe(303);
    const back = new URL(locationOf(decided));
    expect(`${back.origin}${back.pathname}`).toBe(authorize.searchParams.get('redirect_uri'));
    // The browser follows the redirect to the command's loopback port.
    return { back, landing: await fetch(back) };
  }

  /** A refusal as a person should meet it: exit 1, nothing on stdout, the last line of stderr says why, no stack. */
  function expectRefusal(result: CliResult, pattern: RegExp): void {
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^task-service: /);
    expect(lines.at(-1)).toMatch(pattern);
    expect(result.stderr).not.toMatch(STACK_FRAME);
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
        context: '@shop',
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
    expect(ok(await client(['ls', '--context', 'Shop'])).split('\n')[0]).toContain('Buy milk');
    expect(ok(await client(['ls', 'someday']))).toContain('Read a book');

    const ambiguous = await client(['done', 'call']);
    expect(ambiguous.code).toBe(2);
    // One line each, real line breaks between them (never a written-out \u000a).
    const choices = ambiguous.stderr.trimEnd().split('\n');
    expect(choices[0]).toBe('task-service: "call" names 2 open tasks; give more of the title or the id:');
    expect(choices).toHaveLength(3);
    expect(choices).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ {2}\S+ {2}Call <Tom>$/),
        expect.stringMatching(/^ {2}\S+ {2}Call Jerry$/),
      ]),
    );
    expect(ambiguous.stderr).not.toContain('\\u000a');
    expect(ok(await client(['done', 'call j']))).toMatch(/^done \S+ {2}Call Jerry {2}done \d{4}-\d{2}-\d{2}\n$/);
    expect(ok(await client(['ls']))).not.toContain('Call Jerry');
    expect(ok(await client(['ls', 'completed']))).toContain('Call Jerry');
    const missing = await client(['done', 'nothing like this']);
    expect(missing.code).toBe(2);

    // The first sync copies everything but what this client made or changed itself (its local
    // copy has that already, as the service answered it); the next says only what changed elsewhere.
    expect(ok(await client(['sync']))).toBe('up to date: 4 tasks\n');
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

    expect(ok(await client(['logout']))).toContain('the pasted token still works until it is revoked');
    await expect(stat(credentials)).rejects.toThrow(/ENOENT/);
    await expect(stat(copy)).rejects.toThrow(/ENOENT/);
  });

  it('logs in through the browser (code + PKCE on a loopback port), then adds, lists, completes and syncs', async () => {
    const { server, configHome, client, dataDir, login } = await setUpBrowserLogin('walker');
    const running = login();
    const { landing } = await actAsBrowser(running, server.origin, 'walker', 'allow');
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('signed in');
    const result = await running.result;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`logged in to ${server.origin} as walker (UTC)\n`);

    const credentials = path.join(configHome, 'task-service', 'credentials.json');
    expect((await stat(credentials)).mode & 0o777).toBe(0o600);
    const kept: unknown = JSON.parse(await readFile(credentials, 'utf8'));
    expect(kept).toMatchObject({
      url: server.origin,
      token: expect.stringMatching(/^\S{20,}$/),
      refresh_token: expect.stringMatching(/^\S{20,}$/),
      client_id: expect.stringMatching(/^[0-9a-f]{24}$/),
      expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The token is the terminal client's, as the administrator sees it.
    const tokens = await runCli(['token', 'list', 'walker', ...storeFlags({ dataDir })]);
    expect(tokens.stdout).toMatch(/\twrite\t[0-9a-f]{24}\t/);

    expect(ok(await client(['add', 'Water the plants #Home ^2031-03-01']))).toMatch(/Water the plants {2}#Home/);
    ok(await client(['add', 'Phone the bank']));
    expect(ok(await client(['ls']))).toMatch(
      /Water the plants[\s\S]*Phone the bank|Phone the bank[\s\S]*Water the plants/,
    );
    expect(ok(await client(['done', 'phone']))).toMatch(/^done \S+ {2}Phone the bank/);
    expect(ok(await client(['sync']))).toBe('up to date: 2 tasks\n');

    // An access token at its end is renewed with the refresh token before the command runs.
    const first = z.object({ token: z.string(), refresh_token: z.string() }).parse(kept);
    await writeFile(
      credentials,
      JSON.stringify({ ...z.looseObject({}).parse(kept), expires_at: new Date(Date.now() - 1000).toISOString() }),
    );
    expect(ok(await client(['ls', 'completed']))).toContain('Phone the bank');
    const renewed = z
      .object({ token: z.string(), refresh_token: z.string(), expires_at: z.string() })
      .parse(JSON.parse(await readFile(credentials, 'utf8')));
    expect(renewed.token).not.toBe(first.token);
    expect(renewed.refresh_token).not.toBe(first.refresh_token);
    expect(Date.parse(renewed.expires_at)).toBeGreaterThan(Date.now());
    expect((await stat(credentials)).mode & 0o777).toBe(0o600);

    // logout revokes the grant at the service and forgets everything here.
    expect(ok(await client(['logout']))).toBe(`logged out of ${server.origin}; the sign-in is revoked\n`);
    await expect(stat(credentials)).rejects.toThrow(/ENOENT/);
    await expect(
      new TaskServiceClient({ baseUrl: server.origin, token: renewed.token }).settings(),
    ).rejects.toMatchObject({
      retcode: 'E401',
    });
    expect((await client(['ls'])).stderr).toContain('not logged in');
  });

  it('a denied consent, or an answer with another state, ends login with one clear line and keeps nothing', async () => {
    const { server, configHome, login } = await setUpBrowserLogin('doubter');
    const denied = login('env');
    const { back, landing } = await actAsBrowser(denied, server.origin, 'doubter', 'deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(landing.status).toBe(400);
    expectRefusal(await denied.result, /the sign-in was refused in the browser: access_denied/);

    const forged = login();
    const [, address = ''] = await forged.waitForStderr(AUTHORIZE_LINE);
    const redirectUri = new URL(address).searchParams.get('redirect_uri') ?? '';
    const answer = await fetch(`${redirectUri}?code=stolen-code&state=not-the-one-sent`);
    expect(answer.status).toBe(400);
    expectRefusal(
      await forged.result,
      /not logged in: state_mismatch: the answer is not for this authorization request/,
    );

    await expect(stat(path.join(configHome, 'task-service', 'credentials.json'))).rejects.toThrow(/ENOENT/);
    const withoutClient = await runCli(['login', server.origin], { env: { XDG_CONFIG_HOME: configHome } });
    expect(withoutClient.code).toBe(2);
    expect(withoutClient.stderr).toContain('--client-id');
  });

  it('with the service down: ls shows the local copy, add and done queue, sync sends them once it is back', async () => {
    const { server, token, configHome, client, dataDir } = await setUp();
    ok(await client(['login', server.origin, '--token', token]));
    ok(await client(['add', 'Pay the rent']));
    ok(await client(['add', 'Buy stamps #Post']));
    expect(ok(await client(['done', 'pay']))).toMatch(/^done /);
    // Its own changes are not news to it.
    expect(ok(await client(['sync']))).toBe('up to date: 2 tasks\n');

    expect((await server.stop()).code).toBe(0);
    const listed = await client(['ls']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^\S+ {2}Buy stamps {2}#Post\n$/);
    expect(listed.stderr).toMatch(
      new RegExp(
        `^task-service: the service at ${server.origin} could not be reached: the local copy \\(synced \\d{4}-.*\\); it may be stale\\n$`,
      ),
    );

    const added = await client(['add', 'Call the plumber ^tomorrow']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/^queued \S+ {2}Call the plumber {2}\^\d{4}-\d\d-\d\d\n$/);
    expect(added.stderr).toContain(`the service at ${server.origin} could not be reached: the task is queued`);
    const done = await client(['done', 'buy']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/^queued done \S+ {2}Buy stamps/);
    const offline = ok(await client(['ls']));
    expect(offline).toContain('Call the plumber');
    expect(offline).not.toContain('Buy stamps');

    // Errors name the address; what is queued stays queued.
    const failed = await client(['sync']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('2 changes stay queued for the next sync');
    expect(failed.stderr).toMatch(
      new RegExp(`task-service: the service at ${server.origin} could not be reached \\(ECONNREFUSED\\)\\n$`),
    );
    expect(failed.stderr).not.toMatch(STACK_FRAME);

    const back = await startServe({ dataDir, http: true, port: server.port });
    const synced = ok(await client(['sync']));
    expect(synced).toBe('sent: add Call the plumber\nsent: done Buy stamps\nup to date: 3 tasks\n');
    const onService = await new TaskServiceClient({ baseUrl: back.origin, token }).tasks.all();
    const plumber = onService.find((task) => task.title === 'Call the plumber');
    expect(plumber).toMatchObject({ attribute: 'plan', all_day: true });
    // The id the client made is the service's; sent once, whatever the retries.
    const kept = z
      .object({ tasks: z.array(z.object({ id: z.string(), title: z.string() })) })
      .parse(JSON.parse(await readFile(path.join(configHome, 'task-service', 'tasks.json'), 'utf8')));
    expect(kept.tasks.find((task) => task.title === 'Call the plumber')?.id).toBe(plumber?.id);
    expect(onService.filter((task) => task.title === 'Call the plumber')).toHaveLength(1);
    expect(onService.find((task) => task.title === 'Buy stamps')?.completed).not.toBeNull();
    expect(ok(await client(['sync']))).toBe('up to date: 3 tasks\n');
  });

  it("with the service's self-signed certificate untrusted: one line with what to do, before any browser", async () => {
    const dataDir = await makeTempDir('term-tls');
    const configHome = await makeTempDir('term-tls-config');
    const server = await startServe({ dataDir });
    const token = await newAccount({ dataDir }, 'tlsuser');
    const registered = await addClient({ dataDir }, 'Terminal', ['http://127.0.0.1/callback'], ['--public']);
    const env = { XDG_CONFIG_HOME: configHome };
    const hint =
      /^task-service: the service at https:\/\/127\.0\.0\.1:\d+ could not be reached \(DEPTH_ZERO_SELF_SIGNED_CERT\): if it is the service's self-signed certificate, trust it: export NODE_EXTRA_CA_CERTS=data\/tls-cert\.pem/;

    const browser = await runCli(['login', server.origin, '--client-id', registered.id], { env });
    expect(browser.code).toBe(1);
    // Said before the person is sent to a browser: no address to open was printed.
    expect(browser.stderr).not.toContain('/oauth/authorize');
    expectRefusal(browser, hint);
    expectRefusal(await runCli(['login', server.origin, '--token', token], { env }), hint);

    const trusted = await runCli(['login', server.origin, '--token', token], {
      env: { ...env, NODE_EXTRA_CA_CERTS: path.join(dataDir, 'tls-cert.pem') },
    });
    expect(trusted.code, trusted.stderr).toBe(0);
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
