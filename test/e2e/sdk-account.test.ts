/**
 * The SDK's AccountClient against a real `serve` over a socket, as a browser uses it (the web app
 * does, test/web/): a fetch that keeps cookies stands in for the browser's. Signed out and in,
 * text unescaped and dates parsed, the CSRF token renewed once when refused, refusals as
 * AccountError with the server's code and message, export and import, sign-out.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AccountClient,
  AccountError,
  isRetcode,
  isSignedOut,
  TaskServiceClient,
  type Fetch,
} from '../../src/client/index.js';
import type { StoreArgs } from './support/accounts.js';
import { addUserWithPassword, makeStore, serveOn } from './support/auth-server.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, type ServeProcess } from './support/processes.js';
import { WebSession } from './support/web-session.js';

const PASSWORD = 'correct horse battery';
const SPECIALS = `Tom & Jerry <b>'quoted'</b> "double"`;

/** A browser's cookie jar around fetch, and what went over it (method, path, status). */
class CookieFetch {
  readonly cookies = new Map<string, string>();
  readonly sent: string[] = [];

  readonly fetch: Fetch = async (input, init) => {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const name = pair.slice(0, pair.indexOf('=')).trim();
      const value = pair.slice(pair.indexOf('=') + 1).trim();
      const expired = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    this.sent.push(`${init.method ?? 'GET'} ${new URL(input).pathname} ${response.status}`);
    return response;
  };
}

async function refusal(call: Promise<unknown>): Promise<AccountError> {
  const error: unknown = await call.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof AccountError)) throw new Error(`expected an AccountError, got ${String(error)}`);
  return error;
}

describe('the SDK AccountClient against a real serve process', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let store: StoreArgs;
  let server: ServeProcess;
  let users = 0;

  beforeAll(async () => {
    ({ store } = await makeStore('sqlite'));
    server = await serveOn(store);
  });
  afterAll(async () => {
    await cleanUpProcesses();
  });

  /** A browser signed in on the sign-in page, and the AccountClient of its cookies. */
  async function signedIn(): Promise<{ account: AccountClient; browser: CookieFetch; username: string }> {
    users += 1;
    const username = `sdk${users}`;
    await addUserWithPassword(store, username, PASSWORD);
    const page = new WebSession(server.origin);
    await page.signIn(username, PASSWORD);
    const browser = new CookieFetch();
    for (const [name, value] of page.cookies) browser.cookies.set(name, value);
    return { account: new AccountClient({ baseUrl: server.origin, fetch: browser.fetch }), browser, username };
  }

  it('says nobody is signed in, and refuses what needs someone as signed_out', async () => {
    const account = new AccountClient({ baseUrl: server.origin, fetch: new CookieFetch().fetch });
    expect(await account.session()).toBeNull();
    expect(await account.appToken()).toBeNull();
    const refused = await refusal(account.tokens());
    expect(refused).toMatchObject({ status: 401, code: 'signed_out', message: 'not signed in: sign in at /login' });
    expect(isSignedOut(refused)).toBe(true);
    await account.signOut();
  });

  it('names who is signed in and gives a token of the session that /v1 takes, until sign-out', async () => {
    const { account, browser, username } = await signedIn();
    const who = await account.session();
    expect(who).toEqual({ id: expect.stringMatching(/^\d+$/), username });
    const token = await account.appToken();
    expect(token).toMatch(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
    const client = new TaskServiceClient({ baseUrl: server.origin, token: token ?? '', retry: { retries: 0 } });
    expect((await client.settings()).id).toBe(who?.id);

    await account.signOut();
    expect(browser.sent.at(-1)).toBe('POST /logout 303');
    expect(await account.session()).toBeNull();
    const ended: unknown = await client.settings().catch((error: unknown) => error);
    expect(isRetcode(ended, 'E401')).toBe(true);
  });

  it('makes, lists and revokes tokens: text unescaped, dates as Dates, refusals with the reason', async () => {
    const { account } = await signedIn();
    const before = Date.now();
    const made = await account.makeToken({ name: SPECIALS, scope: 'read', expires_in_days: '30' });
    expect(made.token).toMatch(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
    expect(made.entry).toMatchObject({ name: SPECIALS, scope: 'read', last_used: null });
    expect(made.entry.created).toBeInstanceOf(Date);
    const expires = made.entry.expires?.getTime() ?? 0;
    expect(expires - before).toBeGreaterThan(29.9 * 86_400_000);
    expect(expires - before).toBeLessThan(30.1 * 86_400_000);
    expect(await account.tokens()).toEqual([made.entry]);

    const invalid = await refusal(account.makeToken({ name: 'ok', expires_in_days: 'soon' }));
    expect(invalid).toMatchObject({
      status: 400,
      code: 'invalid',
      message: 'expires_in_days must be a number of days or "never"',
    });
    await account.revokeToken(made.entry.id);
    expect(await account.tokens()).toEqual([]);
    expect(await refusal(account.revokeToken('not-an-id'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await account.apps()).toEqual([]);
  });

  it('asks for a new CSRF token once when the server refuses it, and sends again', async () => {
    const { account, browser } = await signedIn();
    await account.session();
    // The cookie the token is checked against is gone, as after a new session in another tab.
    expect(browser.cookies.delete('task_csrf')).toBe(true);
    browser.sent.length = 0;
    const made = await account.makeToken({ name: 'after renewal' });
    expect(made.entry.scope).toBe('write');
    expect(browser.sent).toEqual(['POST /account/tokens 403', 'GET /account/session 200', 'POST /account/tokens 201']);
  });

  it("changes the password with the current one, and answers the new session's token", async () => {
    const { account } = await signedIn();
    expect(await refusal(account.changePassword('nope', 'long enough now'))).toMatchObject({
      code: 'invalid',
      message: 'the current password is wrong',
    });
    const token = await account.changePassword(PASSWORD, 'long enough now');
    const client = new TaskServiceClient({ baseUrl: server.origin, token, retry: { retries: 0 } });
    expect((await client.settings()).username).toBe((await account.session())?.username);
  });

  it('exports the account and imports a file, previewing first', async () => {
    const { account, browser } = await signedIn();
    const client = new TaskServiceClient({ baseUrl: server.origin, token: (await account.appToken()) ?? '' });
    await client.tasks.save({ title: 'plain' });
    const address = account.exportAddress('json');
    expect(address).toBe(`${server.origin}/account/export?format=json`);
    const exported = await browser.fetch(address, { method: 'GET' });
    expect(exported.status).toBe(200);
    const file = (await exported.text()).replace('"plain"', JSON.stringify(SPECIALS));

    const preview = await account.importFile(new Blob([file]), 'json', true);
    expect(preview).toMatchObject({
      dry_run: true,
      settings_changed: false,
      tasks: { created: 0, updated: 1, unchanged: 0 },
      changed: [{ kind: 'task', name: SPECIALS, change: 'updated' }],
      unmapped: [],
    });
    expect((await client.tasks.all()).map((task) => task.title)).toEqual(['plain']);
    expect((await account.importFile(new Blob([file]), 'json', false)).dry_run).toBe(false);
    expect((await client.tasks.all()).map((task) => task.title)).toEqual([SPECIALS]);
    expect(await refusal(account.importFile(new Blob(['{}']), 'json', true))).toMatchObject({ code: 'invalid' });
  });
});

describe('the SDK AccountClient before something that is not the service', () => {
  let proxy: Server;
  let origin: string;

  beforeAll(async () => {
    // What a proxy answers while the service is down.
    proxy = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const address = proxy.address();
    if (address === null || typeof address === 'string') throw new Error('the stand-in proxy has no port');
    origin = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => proxy.close(resolve));
  });

  it('refuses with the status and no code, never as signed out', async () => {
    const account = new AccountClient({ baseUrl: origin });
    const refused = await refusal(account.session());
    expect(refused).toMatchObject({ status: 502, code: null });
    expect(isSignedOut(refused)).toBe(false);
  });
});
