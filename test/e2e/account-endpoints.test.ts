import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreArgs } from './support/accounts.js';
import { addUserWithPassword, ENGINES, makeStore, serveOn } from './support/auth-server.js';
import { oauth, request, type HttpResponse } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, type ServeProcess } from './support/processes.js';
import { WebSession } from './support/web-session.js';

const PASSWORD = 'correct horse battery';

function json(response: HttpResponse): unknown {
  return JSON.parse(response.text);
}

function csrfOf(response: HttpResponse): string {
  const body = json(response);
  if (typeof body !== 'object' || body === null || !('csrf' in body) || typeof body.csrf !== 'string') {
    throw new Error(`no csrf in ${response.text}`);
  }
  return body.csrf;
}

function accessTokenOf(response: HttpResponse): string {
  const body = json(response);
  if (typeof body !== 'object' || body === null || !('access_token' in body) || typeof body.access_token !== 'string') {
    throw new Error(`no access_token in ${response.text}`);
  }
  return body.access_token;
}

// The signed-in browser's endpoints over a socket, on both engines: the session cookie decides,
// every POST is CSRF-checked, refusals are JSON, and nothing is cached.
describe.each(ENGINES)('account endpoints on %s', { timeout: E2E_TEST_TIMEOUT_MS }, (engine) => {
  let store: StoreArgs;
  let server: ServeProcess;
  let users = 0;

  beforeAll(async () => {
    ({ store } = await makeStore(engine));
    server = await serveOn(store);
  });
  afterAll(async () => {
    await cleanUpProcesses();
  });

  async function signedIn(): Promise<{ browser: WebSession; csrf: string; username: string }> {
    users += 1;
    const username = `acct${users}`;
    await addUserWithPassword(store, username, PASSWORD);
    const browser = new WebSession(server.origin);
    await browser.signIn(username, PASSWORD);
    const session = await browser.get('/account/session');
    expect(session.status).toBe(200);
    return { browser, csrf: csrfOf(session), username };
  }

  it('answers 401 in JSON without a session, and names who is signed in with one', async () => {
    const stranger = new WebSession(server.origin);
    for (const path of ['/account/session', '/account/tokens', '/account/apps']) {
      const answer = await stranger.get(path);
      expect(answer.status, path).toBe(401);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(json(answer)).toEqual({ error: 'signed_out', message: 'not signed in: sign in at /login' });
    }
    const { browser, username } = await signedIn();
    const session = await browser.get('/account/session');
    expect(json(session)).toMatchObject({ username, id: expect.stringMatching(/^\d+$/) });
    expect(session.headers['cache-control']).toBe('no-store');
  });

  it('refuses every POST without the CSRF token, with a wrong one, or from another site', async () => {
    const { browser, csrf } = await signedIn();
    const cases: [string, Record<string, string>, Record<string, string>][] = [
      ['no token', {}, {}],
      ['a wrong token', {}, { 'x-csrf-token': 'not-the-token' }],
      ['a foreign Origin', {}, { 'x-csrf-token': csrf, origin: 'https://evil.example' }],
      ['a null Origin', {}, { 'x-csrf-token': csrf, origin: 'null' }],
      // Issue 21 item 6: the whole origin is compared, the scheme too.
      [
        'the same host over another scheme',
        {},
        { 'x-csrf-token': csrf, origin: server.origin.replace('http:', 'https:') },
      ],
      ['cross-site fetch metadata', {}, { 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' }],
    ];
    for (const [label, fields, headers] of cases) {
      for (const path of ['/account/app-token', '/account/tokens', '/account/password']) {
        const answer = await browser.post(path, { name: 'x', ...fields }, headers);
        expect(answer.status, `${label} ${path}`).toBe(403);
        expect(json(answer)).toMatchObject({ error: 'forbidden' });
      }
    }
    // Nothing was made meanwhile.
    expect(json(await browser.get('/account/tokens'))).toEqual({ tokens: [] });
    // The token in the form field works like the header.
    expect((await browser.post('/account/app-token', { _csrf: csrf })).status).toBe(200);
  });

  it("gives the browser's session a token for the app, ended by sign-out", async () => {
    const { browser, csrf } = await signedIn();
    const answer = await browser.post('/account/app-token', {}, { 'x-csrf-token': csrf });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(json(answer)).toEqual({
      access_token: expect.stringMatching(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/),
      token_type: 'bearer',
      expires_in: 86400,
      scope: 'write',
    });
    const token = accessTokenOf(answer);
    expect((await request(server.origin, { path: '/v1/settings', headers: oauth(token) })).status).toBe(200);
    // The app's per-browser tokens are not the person's own tokens.
    expect(json(await browser.get('/account/tokens'))).toEqual({ tokens: [] });
    expect((await browser.post('/logout', {}, { 'x-csrf-token': csrf })).status).toBe(303);
    expect((await request(server.origin, { path: '/v1/settings', headers: oauth(token) })).status).toBe(401);
    expect((await browser.post('/account/app-token', {}, { 'x-csrf-token': csrf })).status).toBe(401);
  });

  it('makes, lists and revokes tokens, refusing bad input with the reason', async () => {
    const { browser, csrf } = await signedIn();
    const headers = { 'x-csrf-token': csrf };
    for (const [fields, message] of [
      [{ name: '  ' }, 'a token needs a name'],
      [{ name: 'x'.repeat(101) }, 'a token name has at most 100 characters'],
      [{ name: 'ok', scope: 'admin' }, 'scope must be read or write'],
      [{ name: 'ok', expires_in_days: '0' }, 'a token expires in 1 to 3650 days, or never'],
      [{ name: 'ok', expires_in_days: 'soon' }, 'expires_in_days must be a number of days or "never"'],
    ] as const) {
      const refused = await browser.post('/account/tokens', fields, headers);
      expect(refused.status, message).toBe(400);
      expect(json(refused)).toEqual({ error: 'invalid', message: message.replace(/"/g, '&quot;') });
    }
    const made = await browser.post('/account/tokens', { name: 'cron & <backup>', scope: 'read' }, headers);
    expect(made.status).toBe(201);
    const body = json(made);
    expect(body).toMatchObject({
      token: expect.stringMatching(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/),
      entry: { name: 'cron &amp; &lt;backup&gt;', scope: 'read', last_used: null, expires: null },
    });
    const { token } = body as { token: string };
    expect((await request(server.origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(200);
    const listed = json(await browser.get('/account/tokens'));
    expect(listed).toEqual({
      tokens: [
        {
          id: expect.stringMatching(/^[0-9a-f]{16}$/),
          name: 'cron &amp; &lt;backup&gt;',
          scope: 'read',
          created: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}$/),
          last_used: null,
          expires: null,
        },
      ],
    });
    expect(JSON.stringify(listed)).not.toContain(token);
    const { id } = (listed as { tokens: { id: string }[] }).tokens[0] ?? { id: '' };

    // Another account cannot revoke it.
    const other = await signedIn();
    expect((await other.browser.post(`/account/tokens/${id}/revoke`, {}, { 'x-csrf-token': other.csrf })).status).toBe(
      404,
    );
    expect((await browser.post('/account/tokens/not-an-id/revoke', {}, headers)).status).toBe(404);
    expect((await browser.post(`/account/tokens/${id}/revoke`, {}, headers)).status).toBe(204);
    expect((await request(server.origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(401);
    expect(json(await browser.get('/account/tokens'))).toEqual({ tokens: [] });
  });

  it('changes the password with the current one: a new session and token for this browser only', async () => {
    const { browser, csrf, username } = await signedIn();
    const elsewhere = new WebSession(server.origin);
    await elsewhere.signIn(username, PASSWORD);
    const headers = { 'x-csrf-token': csrf };
    const wrong = await browser.post(
      '/account/password',
      { current_password: 'nope', new_password: 'long enough now' },
      headers,
    );
    expect(wrong.status).toBe(400);
    expect(json(wrong)).toEqual({ error: 'invalid', message: 'the current password is wrong' });
    const short = await browser.post(
      '/account/password',
      { current_password: PASSWORD, new_password: 'short' },
      headers,
    );
    expect(json(short)).toEqual({ error: 'invalid', message: 'a password has at least 8 characters' });

    const changed = await browser.post(
      '/account/password',
      { current_password: PASSWORD, new_password: 'long enough now' },
      headers,
    );
    expect(changed.status).toBe(200);
    expect(changed.headers['set-cookie']?.some((cookie) => cookie.startsWith('task_session='))).toBe(true);
    const token = accessTokenOf(changed);
    expect((await request(server.origin, { path: '/v1/settings', headers: oauth(token) })).status).toBe(200);
    expect((await browser.get('/account/session')).status).toBe(200);
    expect((await elsewhere.get('/account/session')).status).toBe(401);
  });

  it('leaves /v1 alone: a form POST there is still E005, and a token is no way into /account', async () => {
    const { browser, csrf } = await signedIn();
    const token = accessTokenOf(await browser.post('/account/app-token', {}, { 'x-csrf-token': csrf }));
    const form = await browser.post('/v1/tasks', { title: 'x' }, { 'x-csrf-token': csrf, ...oauth(token) });
    expect(json(form)).toMatchObject({ retcode: 'E005' });
    const withToken = await request(server.origin, { path: '/account/tokens', headers: oauth(token) });
    expect(withToken.status).toBe(401);
  });
});
