import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { tokenIdOf } from '../../src/domain/auth.js';
import { microsFromMillis } from '../../src/domain/time.js';
import { AccountAdmin } from '../../src/service/account-admin.js';
import { ClientAdmin } from '../../src/service/clients.js';
import { hashSecret, secretKeyOf } from '../../src/service/secrets.js';
import { buildServices, type Services } from '../../src/service/services.js';
import { call, startHarness, type Harness } from '../support/harness.js';
import { nowMicros } from '../../src/domain/time.js';

/*
 * The other half of "ready to distribute by account" (postgres-shardable.test.ts holds the schema's
 * half): every statement the service sends names one account, except administration. Every
 * statement of a workload through the services and the app (sign-in, tokens, OAuth, records,
 * lists, settings, the housekeeping) is watched as PostgreSQL receives it. A statement that touches
 * a table distributed by account must name its account by a parameter (`account_id = $n`, `id = $n`
 * in `accounts`, or `account_id` among the columns it inserts), or be one of the administration
 * statements listed here. The check reads the statement's text, not a parse of it: it holds the
 * statements a request sends, not every table of a statement of several.
 */

const BY_ACCOUNT = [
  'accounts',
  'tasks',
  'projects',
  'contexts',
  'idempotency_answers',
  'tokens',
  'sessions',
  'oauth_consents',
  'oauth_codes',
  'refresh_tokens',
];

/** The statements that span accounts, each by a fragment of its text: administration only. */
const ADMINISTRATION: Readonly<Record<string, string>> = {
  'SELECT id FROM accounts ORDER BY id': 'the purge lists every account, then purges one at a time',
  'FROM accounts ORDER BY username': '`user list`',
  'DELETE FROM idempotency_answers WHERE created <': 'the sweep that forgets kept answers',
  'DELETE FROM sessions WHERE last_seen <': 'the sweep that forgets idle sessions, with their tokens',
  'DELETE FROM oauth_codes WHERE expires_at <': 'the sweep that forgets expired codes',
  'DELETE FROM oauth_clients WHERE id = $1': '`client remove`: what every account gave the client ends',
  'FROM tokens WHERE hash >= $1 AND hash < $2 )': '`token revoke --id` without a user',
  'reminder_due IS NOT NULL AND reminder_due <= $1': 'the read of reminders falling due, for the firer of reminders',
};

function tablesIn(sql: string): string[] {
  return BY_ACCOUNT.filter((table) => new RegExp(`\\b${table}\\b`).test(sql));
}

function namesOneAccount(sql: string): boolean {
  if (/\baccount_id = \$\d+/.test(sql)) return true;
  const insert = /^INSERT INTO (\w+) \(([^)]*)\)/.exec(sql);
  if (insert !== null) return insert[1] === 'accounts' || /\baccount_id\b/.test(insert[2] ?? '');
  return tablesIn(sql).every((table) => table === 'accounts') && /\bid = \$\d+/.test(sql);
}

let harness: Harness;
let services: Services;
const statements: string[] = [];

beforeAll(async () => {
  harness = await startHarness('postgres');
  services = buildServices(harness.store);
});
afterAll(async () => {
  vi.restoreAllMocks();
  await harness.close();
});

/** Every statement the workload sends, its whitespace made single spaces. */
async function watched(workload: () => Promise<void>): Promise<void> {
  const query = vi.spyOn(pg.Client.prototype, 'query');
  try {
    await workload();
  } finally {
    for (const [sent] of query.mock.calls) {
      const text: unknown = typeof sent === 'string' ? sent : Reflect.get(Object(sent), 'text');
      if (typeof text === 'string') statements.push(text.replace(/\s+/g, ' ').trim());
    }
    query.mockRestore();
  }
}

async function workload(): Promise<void> {
  const { accounts, signIn, access, oauth } = services;
  const password = 'correct horse';
  const ann = await accounts.addUser('ann', password, 'UTC');
  await accounts.addUser('bob', null, 'UTC');
  const token = await accounts.createToken('ann', 'write', 'cli', null);

  const created = await call(harness.app, {
    url: '/v1/tasks',
    token,
    body: { title: 'Buy milk', project: 'Home', context: 'Shop' },
    headers: { 'idempotency-key': 'k1' },
  });
  expect(created.status).toBe(200);
  for (const url of ['/v1/projects', '/v1/contexts', '/v1/settings']) {
    expect((await call(harness.app, { url, token })).status, url).toBe(200);
  }
  const listed = await call(harness.app, { url: '/v1/tasks', token });
  const cursor: unknown = Reflect.get(Object(listed.json), 'cursor');
  if (typeof cursor !== 'string') throw new Error('a list without a cursor');
  const since = await call(harness.app, { url: `/v1/tasks?cursor=${encodeURIComponent(cursor)}`, token });
  expect(since.status).toBe(200);
  expect((await call(harness.app, { url: '/v1/settings', token, body: { nickname: 'Ann' } })).status).toBe(200);

  const signedIn = await signIn.signIn('ann', password, '10.0.0.1');
  if (!signedIn.ok) throw new Error('sign-in failed');
  expect((await signIn.appTokenFor(signedIn.sessionId))?.token).toBeDefined();
  const made = await access.makeToken(ann, { name: 'phone', scope: 'read', expiresInDays: null });
  if (!made.ok) throw new Error(made.message);
  expect(await access.revokeToken(ann, made.summary.id)).toBe(true);
  expect(await signIn.signIn('ann', 'wrong', '10.0.0.1')).toEqual({ ok: false, refused: 'wrong' });

  const client = await new ClientAdmin(harness.store, nowMicros).add({
    name: 'app',
    redirectUris: ['https://example.com/cb'],
    public: false,
    legacyImplicit: false,
  });
  const basic = { clientId: client.id, secret: client.secret ?? '' };
  const check = await oauth.checkAuthorize({
    response_type: 'code',
    client_id: client.id,
    redirect_uri: 'https://example.com/cb',
    scope: 'write',
  });
  if (check.kind !== 'ok') throw new Error('authorize refused');
  expect(await oauth.needsConsent(ann, check.request)).toBe(true);
  const code = new URL(await oauth.approve(ann, check.request)).searchParams.get('code') ?? '';
  const issued = await oauth.exchange({ form: { grant_type: 'authorization_code', code }, basic, address: 'a' });
  const refreshed = await oauth.exchange({
    form: { grant_type: 'refresh_token', refresh_token: issued.refresh_token ?? '' },
    basic,
    address: 'a',
  });
  await oauth.revoke({ form: { token: refreshed.access_token }, basic, address: 'a' });
  await oauth.revoke({ form: { token: refreshed.refresh_token ?? '' }, basic, address: 'a' });
  expect((await access.connectedApps(ann)).map((app) => app.clientId)).toEqual([client.id]);
  expect(await access.revokeApp(ann, client.id)).toBe(true);

  const changed = await signIn.changePassword(ann, password, 'another horse', '10.0.0.1');
  if (!changed.ok) throw new Error(changed.message);
  // What the services do in the background or only after minutes, done at once.
  const at = microsFromMillis(Date.now());
  await harness.store.auth.touchTokens([{ accountId: ann.id, hash: hashSecret(token), at }]);
  await harness.store.auth.touchSession(secretKeyOf(changed.sessionId), at);
  await signIn.signOut(changed.sessionId);
  await accounts.revokeToken(token);

  // Administration.
  const admin = new AccountAdmin(harness.store, nowMicros);
  const second = await accounts.createToken('bob', 'read', 'cli', null);
  await admin.revokeTokenById(tokenIdOf(hashSecret(second)));
  expect((await admin.listUsers()).map((user) => user.username)).toEqual(['ann', 'bob']);
  const later = microsFromMillis(Date.now()) + 1;
  await signIn.forgetOld();
  await harness.store.purge(later);
  await harness.store.forgetKept(later);
  await harness.store.dueReminders(later, 100);
  await new ClientAdmin(harness.store, nowMicros).remove(client.id);
  await accounts.disableUser('bob');
}

describe('the statements the service sends to PostgreSQL', () => {
  it('tells a statement that names no account from one that does', () => {
    expect(namesOneAccount('SELECT scope FROM tokens WHERE hash = $1')).toBe(false);
    expect(namesOneAccount('UPDATE tasks SET title = $2 WHERE id = $1')).toBe(false);
    expect(namesOneAccount('SELECT rev FROM accounts WHERE username = $1')).toBe(false);
    expect(namesOneAccount('SELECT scope FROM tokens WHERE account_id = $1 AND hash = $2')).toBe(true);
  });

  it('name one account each, but administration', async () => {
    await watched(workload);
    const touching = statements.filter((sql) => tablesIn(sql).length > 0);
    expect(touching.length).toBeGreaterThan(40);
    const administration = Object.keys(ADMINISTRATION);
    const unnamed = touching.filter(
      (sql) => !namesOneAccount(sql) && !administration.some((fragment) => sql.includes(fragment)),
    );
    expect(unnamed).toEqual([]);
    // Every listed exception is still sent: a stale one would let a new statement of that text pass.
    expect(administration.filter((fragment) => !touching.some((sql) => sql.includes(fragment)))).toEqual([]);
  });
});
