import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TestDatabase } from '../support/postgres.js';
import type { StoreArgs } from './support/accounts.js';
import { addClient, addUserWithPassword, ENGINES, makeStore, serveOn } from './support/auth-server.js';
import { expireAllCodes } from './support/expire-codes.js';
import { oauth, request, type HttpResponse } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, type ServeProcess } from './support/processes.js';
import { hiddenFields, locationOf, WebSession } from './support/web-session.js';

const PASSWORD = 'correct horse battery';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const oauthErrorSchema = z.strictObject({ error: z.string(), error_description: z.string() });
const tokenSchema = z.looseObject({ access_token: z.string() });

function oauthErrorOf(response: HttpResponse, status: number): string {
  expect(response.status, response.text).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  return oauthErrorSchema.parse(JSON.parse(response.text)).error;
}

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

// Every refusal ACCOUNTS.md names, against the real `serve` over a socket, on both engines.
describe.each(ENGINES)('OAuth and sign-in refusals (%s)', { timeout: E2E_TEST_TIMEOUT_MS }, (engine) => {
  let store: StoreArgs;
  let database: TestDatabase | undefined;
  let server: ServeProcess;
  let origin: string;
  let browser: WebSession;
  const redirectUri = 'https://app.example/cb';
  let confidential: { id: string; secret: string | undefined };
  let publicClient: { id: string; secret: string | undefined };

  beforeAll(async () => {
    ({ store, database } = await makeStore(engine));
    server = await serveOn(store);
    origin = server.origin;
    await addUserWithPassword(store, 'alice', PASSWORD);
    await addUserWithPassword(store, 'bob', PASSWORD);
    confidential = await addClient(store, 'Web app', [redirectUri]);
    publicClient = await addClient(store, 'Phone app', ['http://127.0.0.1/cb', 'com.example.app:/cb'], ['--public']);
    browser = new WebSession(origin);
    await browser.signIn('alice', PASSWORD);
  });
  afterAll(async () => {
    await cleanUpProcesses();
    await database?.drop();
  });

  const authorizePath = (params: Readonly<Record<string, string>>): string =>
    `/oauth/authorize?${new URLSearchParams(params).toString()}`;

  /** Authorizes through the consent form and returns where the answer redirects. */
  async function allow(params: Readonly<Record<string, string>>, decision = 'allow'): Promise<string> {
    const first = await browser.get(authorizePath(params));
    if (first.status === 302) return locationOf(first);
    expect(first.status, first.text).toBe(200);
    const answer = await browser.post('/oauth/authorize', {
      ...hiddenFields(first.text, '/oauth/authorize'),
      decision,
    });
    expect(answer.status, answer.text).toBe(303);
    return locationOf(answer);
  }

  async function codeFor(
    extra: Readonly<Record<string, string>> = {},
    clientId = confidential.id,
    uri = redirectUri,
  ): Promise<string> {
    const location = await allow({ response_type: 'code', client_id: clientId, redirect_uri: uri, ...extra });
    const code = new URL(location).searchParams.get('code');
    if (code === null) throw new Error(`no code in ${location}`);
    return code;
  }

  function redeem(fields: Readonly<Record<string, string>>): Promise<HttpResponse> {
    return request(origin, {
      method: 'POST',
      path: '/oauth/token',
      headers: FORM,
      body: new URLSearchParams(fields).toString(),
    });
  }

  const confidentialRedeem = (code: string, extra: Readonly<Record<string, string>> = {}) =>
    redeem({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: confidential.id,
      client_secret: confidential.secret ?? '',
      ...extra,
    });

  it('an unknown client is an error page, never a redirect', async () => {
    const answer = await browser.get(
      authorizePath({ response_type: 'code', client_id: 'f'.repeat(24), redirect_uri: redirectUri }),
    );
    expect(answer.status).toBe(400);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.text).toContain('unknown client');
  });

  it('a redirect_uri that does not match exactly is an error page, never a redirect', async () => {
    for (const uri of [
      `${redirectUri}/`,
      `${redirectUri}?x=1`,
      'https://app.example/CB',
      'https://evil.example/cb',
      'http://127.0.0.1:9/other',
    ]) {
      const answer = await browser.get(
        authorizePath({ response_type: 'code', client_id: confidential.id, redirect_uri: uri }),
      );
      expect(answer.status, uri).toBe(400);
      expect(answer.headers.location).toBeUndefined();
      expect(answer.text).toContain('redirect_uri');
    }
    // A loopback URI matches on any port, and only on its path.
    const { challenge } = pkce();
    const loopback = await browser.get(
      authorizePath({
        response_type: 'code',
        client_id: publicClient.id,
        redirect_uri: 'http://127.0.0.1:54321/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(loopback.status).toBe(200);
  });

  it('implicit is refused, in the fragment, for a client not flagged legacy', async () => {
    const answer = await browser.get(
      authorizePath({ response_type: 'token', client_id: confidential.id, redirect_uri: redirectUri, state: 'st' }),
    );
    expect(answer.status).toBe(302);
    expect(locationOf(answer)).toMatch(
      /^https:\/\/app\.example\/cb#error=unauthorized_client&error_description=[^&]+&state=st$/,
    );
  });

  it('a public client must send an S256 challenge; plain is refused', async () => {
    const base = { response_type: 'code', client_id: publicClient.id, redirect_uri: 'com.example.app:/cb', state: 'p' };
    const missing = new URL(locationOf(await browser.get(authorizePath(base))));
    expect(missing.searchParams.get('error')).toBe('invalid_request');
    expect(missing.searchParams.get('state')).toBe('p');
    const { verifier } = pkce();
    const plain = new URL(
      locationOf(
        await browser.get(authorizePath({ ...base, code_challenge: verifier, code_challenge_method: 'plain' })),
      ),
    );
    expect(plain.searchParams.get('error')).toBe('invalid_request');
  });

  it('a missing or wrong code_verifier is refused', async () => {
    const { verifier, challenge } = pkce();
    const params = { code_challenge: challenge, code_challenge_method: 'S256' };
    const uri = 'com.example.app:/cb';
    const missingCode = await codeFor(params, publicClient.id, uri);
    expect(
      oauthErrorOf(
        await redeem({
          grant_type: 'authorization_code',
          code: missingCode,
          redirect_uri: uri,
          client_id: publicClient.id,
        }),
        400,
      ),
    ).toBe('invalid_grant');
    const wrongCode = await codeFor(params, publicClient.id, uri);
    const wrong = await redeem({
      grant_type: 'authorization_code',
      code: wrongCode,
      redirect_uri: uri,
      client_id: publicClient.id,
      code_verifier: pkce().verifier,
    });
    expect(oauthErrorOf(wrong, 400)).toBe('invalid_grant');
    // The right verifier on a fresh code works, so the refusals above were about the verifier.
    const goodCode = await codeFor(params, publicClient.id, uri);
    const good = await redeem({
      grant_type: 'authorization_code',
      code: goodCode,
      redirect_uri: uri,
      client_id: publicClient.id,
      code_verifier: verifier,
    });
    expect(good.status, good.text).toBe(200);
  });

  it('a code used twice is refused, and the tokens it made are revoked', async () => {
    const code = await codeFor();
    const first = await confidentialRedeem(code);
    expect(first.status, first.text).toBe(200);
    const { access_token: token } = tokenSchema.parse(JSON.parse(first.text));
    expect((await request(origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(200);
    expect(oauthErrorOf(await confidentialRedeem(code), 400)).toBe('invalid_grant');
    expect((await request(origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(401);
  });

  it('an expired code is refused', async () => {
    const code = await codeFor();
    await expireAllCodes(store);
    expect(oauthErrorOf(await confidentialRedeem(code), 400)).toBe('invalid_grant');
  });

  it('a code is bound to its client and redirect_uri; client authentication is required', async () => {
    const other = await addClient(store, 'Other app', [redirectUri]);
    const stolen = await codeFor();
    const byOther = await redeem({
      grant_type: 'authorization_code',
      code: stolen,
      redirect_uri: redirectUri,
      client_id: other.id,
      client_secret: other.secret ?? '',
    });
    expect(oauthErrorOf(byOther, 400)).toBe('invalid_grant');
    const elsewhere = await codeFor();
    const misdirected = await confidentialRedeem(elsewhere, { redirect_uri: 'https://app.example/other' });
    expect(oauthErrorOf(misdirected, 400)).toBe('invalid_grant');
    // Issue 21 item 6: a refusal that used the code up says so, so the client asks for a new one.
    for (const [refused, reason] of [
      [byOther, 'the code was issued to another client'],
      [misdirected, 'redirect_uri differs from the authorization request'],
    ] as const) {
      expect(oauthErrorSchema.parse(JSON.parse(refused.text)).error_description).toBe(
        `${reason}; the code is used up: start the authorization again`,
      );
    }
    expect(oauthErrorSchema.parse(JSON.parse((await confidentialRedeem(elsewhere)).text)).error_description).toBe(
      'the code was used already; the tokens it made are revoked',
    );
    const noSecret = await redeem({
      grant_type: 'authorization_code',
      code: await codeFor(),
      redirect_uri: redirectUri,
      client_id: confidential.id,
    });
    expect(oauthErrorOf(noSecret, 401)).toBe('invalid_client');
    expect(noSecret.headers['www-authenticate']).toMatch(/^Basic/);
    expect(
      oauthErrorOf(
        await redeem({ grant_type: 'password', client_id: confidential.id, client_secret: confidential.secret ?? '' }),
        400,
      ),
    ).toBe('unsupported_grant_type');
    const json = await request(origin, {
      method: 'POST',
      path: '/oauth/token',
      body: { grant_type: 'authorization_code' },
    });
    expect(oauthErrorOf(json, 400)).toBe('invalid_request');
  });

  it('Deny sends access_denied back: in the query for codes, in the fragment for tokens', async () => {
    const denied = new URL(
      await allow(
        {
          response_type: 'code',
          client_id: (await addClient(store, 'Denied', [redirectUri])).id,
          redirect_uri: redirectUri,
          state: 'd1',
        },
        'deny',
      ),
    );
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('d1');
    expect(denied.searchParams.get('code')).toBeNull();
    const resultPage = `${origin}/oauth/auth_result.html`;
    const legacy = await addClient(store, 'Legacy denied', [resultPage], ['--legacy-implicit']);
    const fragment = await allow(
      { response_type: 'token', client_id: legacy.id, redirect_uri: resultPage, state: 'd2' },
      'deny',
    );
    expect(fragment).toMatch(/#error=access_denied&error_description=[^&]+&state=d2$/);
    expect(fragment).not.toContain('access_token');
  });

  it('a form POST without the CSRF token, or from a foreign Origin, is refused and changes nothing', async () => {
    const client = await addClient(store, 'CSRF target', [redirectUri]);
    const params = { response_type: 'code', client_id: client.id, redirect_uri: redirectUri };
    const consent = await browser.get(authorizePath(params));
    const fields = hiddenFields(consent.text, '/oauth/authorize');
    const withoutToken = Object.fromEntries(Object.entries(fields).filter(([name]) => name !== '_csrf'));
    const noToken = await browser.post('/oauth/authorize', { ...withoutToken, decision: 'allow' });
    expect(noToken.status).toBe(403);
    expect(noToken.headers.location).toBeUndefined();
    const foreign = await browser.post(
      '/oauth/authorize',
      { ...fields, decision: 'allow' },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const crossSite = await browser.post(
      '/oauth/authorize',
      { ...fields, decision: 'allow' },
      { 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    // Nothing was allowed: the consent page is still asked.
    expect((await browser.get(authorizePath(params))).status).toBe(200);
    // Sign-in is guarded alike.
    const login = await new WebSession(origin).post('/login', { username: 'alice', password: PASSWORD });
    expect(login.status).toBe(403);
    expect(login.headers['set-cookie']?.some((cookie) => cookie.startsWith('task_session='))).not.toBe(true);
  });

  it('sign-in and consent pages cannot be framed', async () => {
    const fresh = await addClient(store, 'Never allowed', [redirectUri]);
    for (const path of [
      '/login',
      authorizePath({ response_type: 'code', client_id: fresh.id, redirect_uri: redirectUri }),
    ]) {
      const page = await browser.get(path);
      expect(page.status).toBe(200);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('a form POST to /v1/tasks is still E005: the form parser stays out of /v1', async () => {
    const location = await allow({ response_type: 'code', client_id: confidential.id, redirect_uri: redirectUri });
    const code = new URL(location).searchParams.get('code') ?? '';
    const { access_token: token } = tokenSchema.parse(JSON.parse((await confidentialRedeem(code)).text));
    const form = await request(origin, {
      method: 'POST',
      path: '/v1/tasks',
      headers: { ...FORM, ...oauth(token) },
      body: 'title=hi',
    });
    expect(JSON.parse(form.text)).toMatchObject({ retcode: 'E005' });
  });

  it('wrong name and wrong password get one message; guessing is throttled; the right password works after the delay', async () => {
    const stranger = new WebSession(origin);
    const tryPassword = async (username: string, password: string): Promise<HttpResponse> =>
      stranger.signInAt('/login', username, password);
    const unknown = await tryPassword('nobody-here', 'x');
    const wrong = await tryPassword('bob', 'wrong 1');
    for (const answer of [unknown, wrong]) {
      expect(answer.status).toBe(401);
      expect(answer.text).toContain('wrong username or password');
    }
    for (let i = 2; i <= 5; i += 1) expect((await tryPassword('bob', `wrong ${i}`)).status).toBe(401);
    // The sixth try, with the right password, comes within the delay: refused, same message.
    const throttled = await tryPassword('bob', PASSWORD);
    expect(throttled.status).toBe(401);
    expect(throttled.text).toContain('wrong username or password');
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const after = await tryPassword('bob', PASSWORD);
    expect(after.status, after.text).toBe(303);
  });
  // Last: it throttles this address at the token endpoint for the rest of the file.
  it('failed client authentication at the token endpoint is throttled per address', async () => {
    let answer: HttpResponse | undefined;
    for (let i = 0; i < 25; i += 1) {
      answer = await redeem({
        grant_type: 'authorization_code',
        code: 'x',
        client_id: confidential.id,
        client_secret: 'wrong',
      });
      if (answer.status === 429) break;
      expect(oauthErrorOf(answer, 401)).toBe('invalid_client');
    }
    if (answer === undefined) throw new Error('no answer');
    expect(oauthErrorOf(answer, 429)).toBe('temporarily_unavailable');
    expect(answer.headers['retry-after']).toBeDefined();
    // Throttled means refused before any check: even right credentials wait.
    const right = await confidentialRedeem('still-not-a-code');
    expect(oauthErrorOf(right, 429)).toBe('temporarily_unavailable');
  });
});
