/**
 * The OpenAPI document (GET /openapi.json) and its page (GET /docs): a valid OpenAPI 3.1
 * document, naming every route the app serves and nothing else. That every answer of the HTTP
 * suite matches it is checked on each request (test/support/openapi-check.ts).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../src/http/openapi/document.js';
import { BODY_LIMIT_BYTES } from '../../src/http/request-body.js';
import { ClientAdmin } from '../../src/service/clients.js';
import { call } from '../support/harness.js';
import { checkAgainstDocument } from '../support/openapi-check.js';
import { expectJsonHeaders } from './support/api.js';
import { InProcessBrowser } from './support/browser.js';
import { useHarness } from './support/setup.js';
import { nowMicros } from '../../src/domain/time.js';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `METHOD /path` of every operation of the document, written as fastify's routes: a last `{id}`
 * as `*` (a /v1 id may hold `/`), a `{param}` before the end as `:param`.
 */
function documentedRoutes(document: Json): string[] {
  const paths = isRecord(document['paths']) ? document['paths'] : {};
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.keys(isRecord(item) ? item : {}).map(
      (method) => `${method.toUpperCase()} ${path.replace(/\/\{id\}$/, '/*').replace(/\{(\w+)\}/g, ':$1')}`,
    ),
  );
}

/** The document's own path of a route `documentedRoutes` wrote. */
function documentedPath(route: string): string {
  return route.replace(/\/\*$/, '/{id}').replace(/:(\w+)/g, '{$1}');
}

function stringAt(value: unknown, key: string): string {
  const inner = isRecord(value) ? value[key] : undefined;
  if (typeof inner !== 'string') throw new Error(`no string ${key} in ${JSON.stringify(value)}`);
  return inner;
}

/**
 * `METHOD /path` of every route fastify registered, read from its route tree (`printRoutes`):
 * each line is a path segment with its methods, indented under its parent by four columns.
 */
function registeredRoutes(tree: string): string[] {
  const routes: string[] = [];
  const parents: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│ ├└─]*)(\S+) \(([A-Z, ]+)\)$/.exec(line.trimEnd());
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4 - 1;
    const segment = match[2] ?? '';
    const parent = depth > 0 ? (parents[depth - 1] ?? '') : '';
    const path = depth > 0 && !segment.startsWith('/') ? `${parent}/${segment}` : `${parent}${segment}`;
    parents[depth] = path;
    for (const method of (match[3] ?? '').split(', ')) routes.push(`${method} ${path}`);
  }
  return routes;
}

describe('the OpenAPI document', () => {
  // Everything serve registers: sign-in and OAuth, with --signup.
  const suite = useHarness('sqlite', { services: { signup: true }, app: { webAuth: true } });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(openApiDocument());
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('is served at /openapi.json, without a credential', async () => {
    const answer = await call(suite().harness.app, { url: '/openapi.json' });
    expect(answer.status).toBe(200);
    expectJsonHeaders(answer);
    expect(answer.json).toEqual(openApiDocument());
  });

  it('names every route the app registers, and nothing else', () => {
    const registered = registeredRoutes(suite().harness.app.printRoutes({ commonPrefix: false }));
    expect(registered).toContain('GET /v1/tasks/*');
    for (const route of [
      'GET /oauth/authorize',
      'POST /oauth/token',
      'POST /oauth/revoke',
      'GET /healthz',
      'POST /account/tokens/:id/revoke',
    ])
      expect(registered).toContain(route);
    expect(registered.sort()).toEqual(documentedRoutes(openApiDocument()).sort());
  });

  it('gives every operation its error answers with their statuses', () => {
    const paths = openApiDocument()['paths'];
    const list = isRecord(paths) && isRecord(paths['/v1/tasks']) ? paths['/v1/tasks'] : {};
    const responses = isRecord(list['get']) && isRecord(list['get']['responses']) ? list['get']['responses'] : {};
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '500', '502', '503']);
    expect(JSON.stringify(responses['400'])).toContain('"enum":["E003","E004","E008"]');
    expect(JSON.stringify(responses['503'])).toContain('Retry-After');
  });

  it('describes the answers of sign-in and the OAuth endpoints (each checked against it on the way in)', async () => {
    const { app } = suite().harness;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const metadata = await call(app, { url: '/.well-known/oauth-authorization-server' });
    expect(metadata.status).toBe(200);
    const notAForm = await call(app, { method: 'POST', url: '/oauth/token', body: { grant_type: 'x' } });
    expect(notAForm.json).toMatchObject({ error: 'invalid_request' });
    const unknownClient = await call(app, {
      method: 'POST',
      url: '/oauth/token',
      headers: form,
      body: 'grant_type=authorization_code&code=x&client_id=nobody',
    });
    expect(unknownClient.status).toBe(401);
    expect(unknownClient.json).toMatchObject({ error: 'invalid_client' });
    const revoked = await call(app, {
      method: 'POST',
      url: '/oauth/revoke',
      headers: form,
      body: 'token=x&client_id=nobody',
    });
    expect(revoked.status).toBe(401);
    const neverRedirected = await call(app, { url: '/oauth/authorize?response_type=code&client_id=nobody' });
    expect(neverRedirected.status).toBe(400);
    expect(neverRedirected.headers['content-type']).toBe('text/html; charset=utf-8');
    expect((await call(app, { url: '/login?next=/oauth/authorize' })).status).toBe(200);
    expect((await call(app, { url: '/signup' })).status).toBe(200);
    const forged = await call(app, { method: 'POST', url: '/login', headers: form, body: 'username=a&password=b' });
    expect(forged.status).toBe(403);
    expect((await call(app, { url: '/oauth/auth_result.html' })).status).toBe(200);
    expect((await call(app, { url: '/oauth/auth_result.js' })).status).toBe(200);
  });

  it('describes every answer of the account endpoints, given a real session (each checked against it on the way in)', async () => {
    const { app, store } = suite().harness;
    const stranger = new InProcessBrowser(app);
    for (const path of ['/account/session', '/account/tokens', '/account/apps'])
      expect((await stranger.get(path)).json, path).toMatchObject({ error: 'signed_out' });

    const browser = new InProcessBrowser(app);
    await browser.signUp(`acct_${process.pid}`, 'correct horse battery');
    const session = await browser.get('/account/session');
    expect(session.status).toBe(200);
    expect(session.headers['cache-control']).toBe('no-store');
    const csrf = { 'x-csrf-token': stringAt(session.json, 'csrf') };

    expect((await browser.post('/account/app-token', {})).json).toMatchObject({ error: 'forbidden' });
    expect((await browser.post('/account/app-token', {}, csrf)).status).toBe(200);
    const huge = await browser.post('/account/tokens', { name: 'x'.repeat(BODY_LIMIT_BYTES) }, csrf);
    expect(huge.status).toBe(413);

    // Personal tokens: refused, made (with the fields that may be null filled), listed, revoked.
    expect((await browser.post('/account/tokens', { name: ' ' }, csrf)).json).toMatchObject({ error: 'invalid' });
    const made = await browser.post(
      '/account/tokens',
      { name: 'cron & co', scope: 'read', expires_in_days: '30' },
      csrf,
    );
    expect(made.status).toBe(201);
    const entry = isRecord(made.json) ? made.json['entry'] : undefined;
    expect(entry).toMatchObject({ name: 'cron &amp; co', expires: expect.any(String) });
    expect((await browser.get('/account/tokens')).json).toEqual({ tokens: [entry] });
    const tokenId = stringAt(entry, 'id');
    expect((await browser.post('/account/tokens/0000000000000000/revoke', {}, csrf)).status).toBe(404);
    expect((await browser.post(`/account/tokens/${tokenId}/revoke`, {}, csrf)).status).toBe(204);

    // A connected app, allowed through the consent page.
    const client = await new ClientAdmin(store, nowMicros).add({
      name: 'Vim & co',
      redirectUris: ['https://app.example/back'],
      public: false,
      legacyImplicit: false,
    });
    const authorize = {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: 'https://app.example/back',
      state: 's',
    };
    expect((await browser.get(`/oauth/authorize?${new URLSearchParams(authorize).toString()}`)).status).toBe(200);
    expect((await browser.post('/oauth/authorize', { ...authorize, decision: 'allow' }, csrf)).status).toBe(303);
    const apps = await browser.get('/account/apps');
    expect(apps.json).toMatchObject({ apps: [{ client_id: client.id, name: 'Vim &amp; co', last_used: null }] });
    expect((await browser.post(`/account/apps/${client.id}/revoke`, {}, csrf)).status).toBe(204);
    expect((await browser.post(`/account/apps/${client.id}/revoke`, {}, csrf)).status).toBe(404);

    // The password: refused, then changed (a new session for this browser).
    const wrong = await browser.post(
      '/account/password',
      { current_password: 'nope', new_password: 'long enough' },
      csrf,
    );
    expect(wrong.json).toMatchObject({ error: 'invalid' });
    const changed = await browser.post(
      '/account/password',
      { current_password: 'correct horse battery', new_password: 'long enough' },
      csrf,
    );
    expect(changed.status).toBe(200);
    expect((await browser.get('/account/session')).status).toBe(200);

    // Signed out, the CSRF token still right: every POST is signed_out.
    expect((await browser.post('/logout', {}, csrf)).status).toBe(303);
    for (const path of [
      '/account/app-token',
      '/account/password',
      '/account/tokens',
      `/account/tokens/${tokenId}/revoke`,
    ])
      expect((await browser.post(path, {}, csrf)).json, path).toMatchObject({ error: 'signed_out' });
  });

  it('catches an answer that differs from it', () => {
    const task = { id: 'a', title: 't', notes: '', attribute: 'inbox', all_day: false, start_at: null, end_at: null };
    const body = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
    const headers = { 'content-type': 'application/json; charset=utf-8' };
    // A task missing most fields, an undocumented status, a retcode the operation never answers.
    expect(() =>
      checkAgainstDocument({ method: 'GET', url: '/v1/tasks/a', status: 200, headers, body: body(task) }),
    ).toThrow(/differs/);
    expect(() =>
      checkAgainstDocument({ method: 'GET', url: '/healthz', status: 404, headers, body: body({ status: 'ok' }) }),
    ).toThrow(/no 404 answer/);
    const error = { retcode: 'E009', retmsg: 'conflict', reqdata: '' };
    expect(() =>
      checkAgainstDocument({ method: 'GET', url: '/v1/tasks', status: 400, headers, body: body(error) }),
    ).toThrow(/differs/);
    expect(() =>
      checkAgainstDocument({
        method: 'GET',
        url: '/v1/tasks',
        status: 400,
        headers,
        body: body({ ...error, retcode: 'E008' }),
      }),
    ).not.toThrow();
    // An account refusal whose code is not its status's.
    const refusal = { error: 'invalid', message: 'no such token' };
    expect(() =>
      checkAgainstDocument({
        method: 'POST',
        url: '/account/tokens/a/revoke',
        status: 404,
        headers,
        body: body(refusal),
      }),
    ).toThrow(/differs/);
  });

  it('is readable at /docs: every operation, text escaped, no script', async () => {
    const answer = await call(suite().harness.app, { url: '/docs' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.headers['content-security-policy']).toContain("default-src 'none'");
    for (const route of documentedRoutes(openApiDocument())) {
      const [method = '', path = ''] = route.split(' ');
      expect(answer.text).toContain(`<span class="method">${method}</span> <code>${documentedPath(path)}</code>`);
    }
    expect(answer.text).not.toContain('<script');
    // The description's `"` and `'` come out as entities, never as raw markup.
    expect(answer.text).toContain('&quot;retcode&quot;');
    expect(answer.text).toContain('<a href="#schema-Task">Task</a>');
  });
});

// Issue 21 item 6: a server without --signup answers E002 at /signup, so it does not document it.
describe('the OpenAPI document of a server without --signup', () => {
  const suite = useHarness('sqlite', { services: { signup: false }, app: { webAuth: true } });

  it('names every route this app registers, /signup not among them', async () => {
    const answer = (await call(suite().harness.app, { url: '/openapi.json' })).json;
    const served: Json = isRecord(answer) ? answer : {};
    const registered = registeredRoutes(suite().harness.app.printRoutes({ commonPrefix: false }));
    expect(registered).not.toContain('GET /signup');
    expect(documentedRoutes(served).sort()).toEqual(registered.sort());
    // The rest is the whole document's.
    const { paths: allPaths, ...rest } = openApiDocument();
    expect(served).toMatchObject(rest);
    expect(Object.keys(isRecord(served['paths']) ? served['paths'] : {})).toEqual(
      Object.keys(isRecord(allPaths) ? allPaths : {}).filter((path) => path !== '/signup'),
    );
    expect((await call(suite().harness.app, { url: '/docs' })).text).not.toContain('<code>/signup</code>');
  });
});

describe('the OpenAPI document, under load', () => {
  // Every request is shed: the answer of each must be the documented E503, pages and account too.
  const suite = useHarness('sqlite', {
    services: { signup: true },
    app: { webAuth: true, loadLimits: { maxInFlight: 0, maxEventLoopDelayMs: Number.MAX_SAFE_INTEGER } },
  });

  it('answers E503 with Retry-After on every route, not a failure of its own', async () => {
    const { app } = suite().harness;
    for (const route of documentedRoutes(openApiDocument())) {
      const [method = '', path = ''] = route.split(' ');
      const url = path.replace(/\*|:\w+/g, 'x');
      const answer = await call(app, { method: method === 'POST' ? 'POST' : 'GET', url });
      expect(answer.status, route).toBe(503);
      expect(answer.headers['retry-after'], route).toBeDefined();
      expect(answer.json, route).toMatchObject({ retcode: 'E503' });
    }
  });
});
