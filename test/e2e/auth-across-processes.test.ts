import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { TestDatabase } from '../support/postgres.js';
import { storeFlags, type StoreArgs } from './support/accounts.js';
import { addClient, addUserWithPassword, admin, ENGINES, makeStore, serveOn } from './support/auth-server.js';
import { oauth, request } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, runCli, type ServeProcess } from './support/processes.js';
import { hiddenFields, locationOf, WebSession } from './support/web-session.js';

const PASSWORD = 'correct horse battery';
const tokenSchema = z.looseObject({ access_token: z.string() });

// Sessions and tokens end at once in every process (ACCOUNTS.md sections 1 and 4): two `serve`
// processes share one store; the change is made by the CLI (a third process) or by the other one.
describe.each(ENGINES)(
  'sessions and tokens end at once in another process (%s)',
  { timeout: E2E_TEST_TIMEOUT_MS },
  (engine) => {
    let store: StoreArgs;
    let database: TestDatabase | undefined;
    let first: ServeProcess;
    let second: ServeProcess;
    const redirectUri = 'https://app.example/cb';

    beforeAll(async () => {
      ({ store, database } = await makeStore(engine));
      first = await serveOn(store);
      second = await serveOn(store);
    });
    afterAll(async () => {
      await cleanUpProcesses();
      await database?.drop();
    });

    /** Signs in on the first process and returns the session as the second process sees it. */
    async function sessionOnSecond(username: string): Promise<WebSession> {
      const onFirst = new WebSession(first.origin);
      await onFirst.signIn(username, PASSWORD);
      const onSecond = new WebSession(second.origin);
      for (const [name, value] of onFirst.cookies) onSecond.cookies.set(name, value);
      expect(await signedInAs(onSecond)).toBe(username);
      return onSecond;
    }

    async function signedInAs(session: WebSession): Promise<string | undefined> {
      const page = await session.get('/login');
      return /You are signed in as <strong>([^<]*)<\/strong>/.exec(page.text)?.[1];
    }

    /** A token made through the code flow on the first process, for `client`. */
    async function oauthToken(username: string, client: { id: string; secret: string | undefined }): Promise<string> {
      const browser = new WebSession(first.origin);
      await browser.signIn(username, PASSWORD);
      const consent = await browser.get(
        `/oauth/authorize?response_type=code&client_id=${client.id}&redirect_uri=${encodeURIComponent(redirectUri)}`,
      );
      // Allowed before: no consent page, the code comes at once.
      const allowed =
        consent.status === 302
          ? consent
          : await browser.post('/oauth/authorize', {
              ...hiddenFields(consent.text, '/oauth/authorize'),
              decision: 'allow',
            });
      const code = new URL(locationOf(allowed)).searchParams.get('code') ?? '';
      const answer = await request(first.origin, {
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: client.id,
          client_secret: client.secret ?? '',
        }).toString(),
      });
      expect(answer.status, answer.text).toBe(200);
      return tokenSchema.parse(JSON.parse(answer.text)).access_token;
    }

    const statusOn = async (server: ServeProcess, token: string): Promise<number> =>
      (await request(server.origin, { path: '/v1/tasks', headers: oauth(token) })).status;

    it('a new password ends every session of the account', async () => {
      await addUserWithPassword(store, 'pat', PASSWORD);
      await addUserWithPassword(store, 'other', PASSWORD);
      const session = await sessionOnSecond('pat');
      const bystander = await sessionOnSecond('other');
      await admin(store, ['user', 'passwd', 'pat', '--password-stdin'], 'a brand new password\n');
      expect(await signedInAs(session)).toBeUndefined();
      expect(await signedInAs(bystander)).toBe('other');
      // Authorizing now asks to sign in again.
      const client = await addClient(store, 'After passwd', [redirectUri]);
      const authorize = await session.get(
        `/oauth/authorize?response_type=code&client_id=${client.id}&redirect_uri=${encodeURIComponent(redirectUri)}`,
      );
      expect(authorize.status).toBe(302);
      expect(locationOf(authorize)).toMatch(/^\/login\?next=/);
    });

    it('disabling the account ends its sessions and makes its tokens E403; enabling brings the tokens back', async () => {
      await addUserWithPassword(store, 'dana', PASSWORD);
      const client = await addClient(store, 'Disable test', [redirectUri]);
      const token = await oauthToken('dana', client);
      const session = await sessionOnSecond('dana');
      expect(await statusOn(second, token)).toBe(200);
      await admin(store, ['user', 'disable', 'dana']);
      expect(await signedInAs(session)).toBeUndefined();
      const refused = await request(second.origin, { path: '/v1/tasks', headers: oauth(token) });
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.text)).toMatchObject({ retcode: 'E403' });
      await admin(store, ['user', 'enable', 'dana']);
      expect(await statusOn(second, token)).toBe(200);
    });

    it('a token revoked by the CLI, or at /oauth/revoke on the other process, is E401 at once', async () => {
      await addUserWithPassword(store, 'rita', PASSWORD);
      const client = await addClient(store, 'Revoke test', [redirectUri]);
      const viaCli = await oauthToken('rita', client);
      const viaEndpoint = await oauthToken('rita', client);
      expect(await statusOn(second, viaCli)).toBe(200);
      expect(await statusOn(second, viaEndpoint)).toBe(200);

      const listed = await runCli(['token', 'list', 'rita', ...storeFlags(store)]);
      const ids = listed.stdout
        .trim()
        .split('\n')
        .map((row) => row.split('\t'));
      expect(ids.every((row) => row[1] === 'Revoke test' && row[3] === client.id)).toBe(true);
      // Which id is which: revoke the first made (oldest first in the list).
      await admin(store, ['token', 'revoke', '--id', ids[0]?.[0] ?? '']);
      expect(await statusOn(second, viaCli)).toBe(401);
      expect(await statusOn(second, viaEndpoint)).toBe(200);

      const revoked = await request(first.origin, {
        method: 'POST',
        path: '/oauth/revoke',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          token: viaEndpoint,
          client_id: client.id,
          client_secret: client.secret ?? '',
        }).toString(),
      });
      expect(revoked.status).toBe(200);
      expect(await statusOn(second, viaEndpoint)).toBe(401);
    });

    it('removing a client makes every token it holds E401 at once, in both processes', async () => {
      await addUserWithPassword(store, 'cleo', PASSWORD);
      const client = await addClient(store, 'Removed app', [redirectUri]);
      const kept = await addClient(store, 'Kept app', [redirectUri]);
      const token = await oauthToken('cleo', client);
      const other = await oauthToken('cleo', kept);
      expect(await statusOn(first, token)).toBe(200);
      expect(await statusOn(second, token)).toBe(200);
      await admin(store, ['client', 'remove', client.id]);
      expect(await statusOn(first, token)).toBe(401);
      expect(await statusOn(second, token)).toBe(401);
      expect(await statusOn(second, other)).toBe(200);
    });
  },
);
