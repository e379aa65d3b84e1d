import http from 'node:http';
import * as oauth4 from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TestDatabase } from '../support/postgres.js';
import type { StoreArgs } from './support/accounts.js';
import { addClient, addUserWithPassword, ENGINES, makeStore, serveOn } from './support/auth-server.js';
import { oauth, request } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, type ServeProcess } from './support/processes.js';
import { bodyOf, settingsSchema, taskListSchema } from './support/wire.js';
import { hiddenFields, localTarget, locationOf, WebSession } from './support/web-session.js';

const PASSWORD = 'correct horse battery';

/** The token endpoint's answer (ACCOUNTS.md section 3). */
const tokenAnswerSchema = z.strictObject({
  access_token: z.string().regex(/^[0-9a-f]{64}$/),
  token_type: z.literal('bearer'),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().regex(/^[0-9a-f]{64}$/),
  scope: z.enum(['read', 'write']),
});

// Every flow of ACCOUNTS.md section 3 against the real `serve` over a socket, on both engines.
describe.each(ENGINES)('OAuth 2 flows end to end (%s)', { timeout: E2E_TEST_TIMEOUT_MS }, (engine) => {
  let store: StoreArgs;
  let database: TestDatabase | undefined;
  let server: ServeProcess;
  let origin: string;
  /** Every secret the flows saw: none may appear in the service's log. */
  const secrets: string[] = [PASSWORD];

  beforeAll(async () => {
    ({ store, database } = await makeStore(engine));
    server = await serveOn(store);
    origin = server.origin;
    await addUserWithPassword(store, 'alice', PASSWORD);
  });
  afterAll(async () => {
    await cleanUpProcesses();
    await database?.drop();
  });

  it('the legacy implicit flow, exactly as the Vim plugin and the Chrome extensions drove it', async () => {
    const resultPage = `${origin}/oauth/auth_result.html`;
    const client = await addClient(store, 'Vim plugin', [resultPage], ['--legacy-implicit']);
    const browser = new WebSession(origin);
    const authorize =
      `/oauth/authorize?response_type=token&client_id=${client.id}` +
      `&redirect_uri=${encodeURIComponent(resultPage)}&state=vim42`;

    // Not signed in: the sign-in page, then back to the authorization request.
    const toLogin = await browser.get(authorize);
    expect(toLogin.status).toBe(302);
    const signedIn = await browser.signInAt(localTarget(toLogin, origin), 'alice', PASSWORD);
    expect(signedIn.status, signedIn.text).toBe(303);
    expect(localTarget(signedIn, origin)).toBe(authorize);

    // The consent page names the client and what it may do, with Allow and Deny.
    const consent = await browser.get(authorize);
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('<strong>Vim plugin</strong> asks to see, add and change your tasks');
    expect(consent.text).toContain('>Allow</button>');
    expect(consent.text).toContain('>Deny</button>');
    expect(consent.headers['x-frame-options']).toBe('DENY');
    const allowed = await browser.post('/oauth/authorize', {
      ...hiddenFields(consent.text, '/oauth/authorize'),
      decision: 'allow',
    });
    expect(allowed.status).toBe(303);
    const location = locationOf(allowed);
    expect(location.startsWith(`${resultPage}#access_token=`)).toBe(true);
    expect(location).toMatch(/#access_token=[0-9a-f]{64}&token_type=bearer&scope=write&state=vim42$/);

    // The clients' own parsing, then the API with their header.
    const token = location.split('access_token=')[1]?.split('&')[0] ?? '';
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    secrets.push(token);
    const tasks = await request(origin, { path: '/v1/tasks', headers: { Authorization: `OAuth ${token}` } });
    bodyOf(tasks, taskListSchema);
    const posted = await request(origin, { path: '/v1/tasks', headers: oauth(token), body: { title: 'from vim' } });
    expect(posted.status).toBe(200);

    // The result page reads the token from the fragment itself; the server never sees it.
    const page = await browser.get('/oauth/auth_result.html');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<label for="token">Access token</label>');
    expect(page.text).toContain('the authorization was refused');
    expect(page.text).toContain('<script src="/oauth/auth_result.js"></script>');

    // Allowed once: the same client asking for no more skips the consent page.
    const again = await browser.get(authorize.replace('vim42', 'second'));
    expect(again.status).toBe(302);
    expect(locationOf(again)).toMatch(/#access_token=[0-9a-f]{64}&token_type=bearer&scope=write&state=second$/);
  });

  it('the legacy code flow: type=web_server form POST to /oauth/access_token, then GET /v1/settings', async () => {
    const redirectUri = 'https://webapp.example/oauth/callback';
    const client = await addClient(store, 'Web app', [redirectUri]);
    const browser = new WebSession(origin);
    await browser.signIn('alice', PASSWORD);
    const authorize = `/oauth/authorize?response_type=code&client_id=${client.id}&redirect_uri=${encodeURIComponent(redirectUri)}&state=s1`;
    const consent = await browser.get(authorize);
    expect(consent.status).toBe(200);
    const allowed = await browser.post('/oauth/authorize', {
      ...hiddenFields(consent.text, '/oauth/authorize'),
      decision: 'allow',
    });
    const back = new URL(locationOf(allowed));
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('s1');
    const code = back.searchParams.get('code') ?? '';

    const answer = await request(origin, {
      method: 'POST',
      path: '/oauth/access_token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        type: 'web_server',
        client_id: client.id,
        client_secret: client.secret ?? '',
        redirect_uri: redirectUri,
        code,
      }).toString(),
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const tokens = tokenAnswerSchema.parse(JSON.parse(answer.text));
    expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 86_400, scope: 'write' });
    secrets.push(code, client.secret ?? '', tokens.access_token, tokens.refresh_token);

    const settings = await request(origin, { path: '/v1/settings', headers: oauth(tokens.access_token) });
    expect(bodyOf(settings, settingsSchema)).toMatchObject({ username: 'alice' });
  });

  it('code + PKCE for a public client on a loopback redirect with a random port; refresh; revoke', async () => {
    const client = await addClient(store, 'Desktop app', ['http://127.0.0.1/callback'], ['--public']);
    // The native app's own listener on a port the kernel picks (RFC 8252 section 7.3).
    const received: URL[] = [];
    const loopback = http.createServer((req, res) => {
      received.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
      res.end('you may close this window');
    });
    await new Promise<void>((resolve) => loopback.listen(0, '127.0.0.1', resolve));
    try {
      const address = loopback.address();
      if (address === null || typeof address === 'string') throw new Error('the loopback listener has no port');
      const { port } = address;
      const redirectUri = `http://127.0.0.1:${port}/callback`;
      const issuer = new URL(origin);
      const insecure = { [oauth4.allowInsecureRequests]: true };
      const as = await oauth4.processDiscoveryResponse(
        issuer,
        await oauth4.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
      );
      expect(as.code_challenge_methods_supported).toEqual(['S256']);
      const appClient: oauth4.Client = { client_id: client.id };
      const verifier = oauth4.generateRandomCodeVerifier();
      const challenge = await oauth4.calculatePKCECodeChallenge(verifier);
      const state = oauth4.generateRandomState();
      const authorizeUrl = new URL(as.authorization_endpoint ?? '');
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: client.id,
        redirect_uri: redirectUri,
        scope: 'read',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state,
      }))
        authorizeUrl.searchParams.set(name, value);

      const browser = new WebSession(origin);
      await browser.signIn('alice', PASSWORD);
      const consent = await browser.get(`${authorizeUrl.pathname}${authorizeUrl.search}`);
      expect(consent.text).toContain('asks to see your tasks');
      const allowed = await browser.post('/oauth/authorize', {
        ...hiddenFields(consent.text, '/oauth/authorize'),
        decision: 'allow',
      });
      // The browser follows the redirect to the app's loopback listener.
      const delivered = await fetch(locationOf(allowed));
      expect(delivered.status).toBe(200);
      const callback = received[0];
      expect(callback?.pathname).toBe('/callback');

      const params = oauth4.validateAuthResponse(as, appClient, callback ?? new URL('http://x'), state);
      const tokens = await oauth4.processAuthorizationCodeResponse(
        as,
        appClient,
        await oauth4.authorizationCodeGrantRequest(
          as,
          appClient,
          oauth4.None(),
          params,
          redirectUri,
          verifier,
          insecure,
        ),
      );
      expect(tokens.scope).toBe('read');
      const readToken = tokens.access_token;
      bodyOf(await request(origin, { path: '/v1/tasks', headers: oauth(readToken) }), taskListSchema);
      // A read token on a POST: E403.
      const write = await request(origin, { path: '/v1/tasks', headers: oauth(readToken), body: { title: 'x' } });
      expect(write.status).toBe(403);
      expect(JSON.parse(write.text)).toMatchObject({ retcode: 'E403' });

      // Refresh: a new access token and a new refresh token; the old refresh token is spent.
      const refreshed = await oauth4.processRefreshTokenResponse(
        as,
        appClient,
        await oauth4.refreshTokenGrantRequest(as, appClient, oauth4.None(), tokens.refresh_token ?? '', insecure),
      );
      expect(refreshed.access_token).not.toBe(readToken);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      bodyOf(await request(origin, { path: '/v1/tasks', headers: oauth(refreshed.access_token) }), taskListSchema);

      // Revoke (RFC 7009) the refresh token: the whole grant ends, its access tokens with it.
      await oauth4.processRevocationResponse(
        await oauth4.revocationRequest(as, appClient, oauth4.None(), refreshed.refresh_token ?? '', insecure),
      );
      for (const token of [readToken, refreshed.access_token]) {
        expect((await request(origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(401);
      }
      const reuse = await oauth4.refreshTokenGrantRequest(
        as,
        appClient,
        oauth4.None(),
        refreshed.refresh_token ?? '',
        insecure,
      );
      expect(reuse.status).toBe(400);
      expect(await reuse.json()).toMatchObject({ error: 'invalid_grant' });
    } finally {
      loopback.close();
    }
  });

  it('revokes one access token at /oauth/revoke, authenticated with HTTP Basic', async () => {
    const redirectUri = 'https://revoker.example/cb';
    const client = await addClient(store, 'Revoker', [redirectUri]);
    const browser = new WebSession(origin);
    await browser.signIn('alice', PASSWORD);
    const consent = await browser.get(
      `/oauth/authorize?response_type=code&client_id=${client.id}&redirect_uri=${encodeURIComponent(redirectUri)}`,
    );
    const allowed = await browser.post('/oauth/authorize', {
      ...hiddenFields(consent.text, '/oauth/authorize'),
      decision: 'allow',
    });
    const code = new URL(locationOf(allowed)).searchParams.get('code') ?? '';
    const basic = { authorization: `Basic ${Buffer.from(`${client.id}:${client.secret ?? ''}`).toString('base64')}` };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const answer = await request(origin, {
      method: 'POST',
      path: '/oauth/token',
      headers: { ...form, ...basic },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }).toString(),
    });
    expect(answer.status, answer.text).toBe(200);
    const { access_token: token } = tokenAnswerSchema.parse(JSON.parse(answer.text));
    expect((await request(origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(200);
    const revoked = await request(origin, {
      method: 'POST',
      path: '/oauth/revoke',
      headers: { ...form, ...basic },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(revoked.status).toBe(200);
    expect((await request(origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(401);
    // Unknown tokens are answered alike (RFC 7009 section 2.2).
    const unknown = await request(origin, {
      method: 'POST',
      path: '/oauth/revoke',
      headers: { ...form, ...basic },
      body: 'token=nothing-like-it',
    });
    expect(unknown.status).toBe(200);
  });
  it('never writes a password, code, client secret or token to its log', async () => {
    expect(secrets.length).toBeGreaterThan(5);
    // The log is written asynchronously: give it a moment to reach the pipe.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const log = server.stdout() + server.stderr();
    expect(log).toContain('"path":"/oauth/authorize"');
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
