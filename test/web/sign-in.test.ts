import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addClient, addUserWithPassword } from '../e2e/support/auth-server.js';
import { oauth, request } from '../e2e/support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, runCli } from '../e2e/support/processes.js';
import { WebSession } from '../e2e/support/web-session.js';
import {
  eventually,
  openBrowser,
  startWebFixture,
  TOKEN_STORAGE_KEY,
  waitForInbox,
  type OpenApp,
  type WebFixture,
} from './support/browser.js';

const PASSWORD = 'correct horse battery';

let people = 0;

describe('signing in to the web app, its settings, and signing out', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let fixture: WebFixture;
  beforeAll(async () => {
    fixture = await startWebFixture();
  });
  afterAll(async () => {
    await fixture?.browser.close();
    await cleanUpProcesses();
  });

  /** A new account with a password, made with the real command line (`user add --password-stdin`). */
  async function newPerson(): Promise<string> {
    people += 1;
    const username = `person${process.pid}x${people}`;
    await addUserWithPassword({ dataDir: fixture.dataDir }, username, PASSWORD);
    return username;
  }

  /** Fills the real sign-in page and presses Sign in. */
  async function fillSignIn(page: Page, username: string, password: string): Promise<void> {
    await page.getByRole('textbox', { name: 'Username' }).fill(username);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /** A fresh browser opening the app, sent to the sign-in page, signing in, back in the Inbox. */
  async function signedIn(username: string): Promise<OpenApp> {
    const opened = await openBrowser(fixture);
    await opened.page.goto(`${fixture.server.origin}/`);
    await opened.page.waitForURL(`${fixture.server.origin}/login?next=%2F`);
    await fillSignIn(opened.page, username, PASSWORD);
    await waitForInbox(opened.page);
    return opened;
  }

  async function tokenIn(page: Page): Promise<string> {
    const token: unknown = await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)})`);
    if (typeof token !== 'string') throw new Error('the app keeps no token');
    return token;
  }

  async function statusOf(token: string): Promise<number> {
    return (await request(fixture.server.origin, { path: '/v1/settings', headers: oauth(token) })).status;
  }

  it('signs in from a fresh browser through the real pages and lands in the Inbox', async () => {
    const username = await newPerson();
    const urls: string[] = [];
    const { page, context, problems } = await openBrowser(fixture);
    page.on('request', (sent) => urls.push(sent.url()));
    await page.goto(`${fixture.server.origin}/`);
    await page.waitForURL(`${fixture.server.origin}/login?next=%2F`);
    await fillSignIn(page, username, PASSWORD);
    await waitForInbox(page);
    expect(page.url()).toBe(`${fixture.server.origin}/`);
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('First thing');
    await field.press('Enter');
    await page.getByRole('checkbox', { name: 'Complete First thing' }).waitFor();

    // The app's token came from the session: it works over a socket like any token, and never
    // travelled in an address.
    const token = await tokenIn(page);
    expect(await statusOf(token)).toBe(200);
    expect(urls.filter((url) => url.includes(token))).toEqual([]);
    // A reload keeps the tab's token: no new one is asked for.
    await page.reload();
    await waitForInbox(page);
    expect(await tokenIn(page)).toBe(token);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a wrong password shows a clear message and signs nobody in', async () => {
    const username = await newPerson();
    const { page, context, problems } = await openBrowser(fixture);
    await page.goto(`${fixture.server.origin}/`);
    await page.waitForURL(/\/login\?next=/);
    await fillSignIn(page, username, 'not the password');
    await page.getByRole('alert').filter({ hasText: 'wrong username or password' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.getByRole('textbox', { name: 'Username' }).inputValue()).toBe(username);
    // The right password still works afterwards, and goes on to the app.
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await waitForInbox(page);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a `next` that points off-site: the sign-in lands in the app instead', async () => {
    const username = await newPerson();
    for (const next of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const { page, context, problems } = await openBrowser(fixture);
      await page.goto(`${fixture.server.origin}/login?next=${encodeURIComponent(next)}`);
      await fillSignIn(page, username, PASSWORD);
      await waitForInbox(page);
      expect(page.url(), next).toBe(`${fixture.server.origin}/`);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('makes a token in Settings, shown once, that works; revoked, it is refused (E401)', async () => {
    const username = await newPerson();
    const { page, context, problems } = await signedIn(username);
    await page.getByRole('link', { name: 'Settings' }).click();
    const tokens = page.getByRole('region', { name: 'Tokens' });
    await tokens.getByText('No tokens yet.').waitFor();
    await tokens.getByRole('textbox', { name: 'Token name' }).fill('backup <script> & "co"');
    await tokens.getByRole('combobox', { name: 'Access' }).selectOption('read');
    await tokens.getByRole('combobox', { name: 'Expires' }).selectOption('30');
    await tokens.getByRole('button', { name: 'New token' }).click();
    const shown = tokens.getByRole('textbox', { name: /Your new token/ });
    const made = await shown.inputValue();
    expect(made).toMatch(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
    expect(await statusOf(made)).toBe(200);
    // A read token: a write is refused.
    const write = await request(fixture.server.origin, {
      path: '/v1/tasks',
      headers: oauth(made),
      body: { title: 'no' },
    });
    expect(JSON.parse(write.text)).toMatchObject({ retcode: 'E403' });

    const list = tokens.getByRole('list', { name: 'Tokens' });
    const item = list.getByRole('listitem').filter({ hasText: 'backup <script> & "co"' });
    await eventually(async () => expect(await item.textContent()).toContain('read only'));
    expect(await item.textContent()).toContain('expires 20');
    // The app's own token for this browser is not among them.
    expect(await list.getByRole('listitem').count()).toBe(1);
    // Shown once: after Done, and after a reload, the token is nowhere on the page.
    await tokens.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('region', { name: 'Tokens' }).getByRole('list', { name: 'Tokens' }).waitFor();
    expect(await page.content()).not.toContain(made);

    await page
      .getByRole('region', { name: 'Tokens' })
      .getByRole('button', { name: 'Revoke backup <script> & "co"' })
      .click();
    await page.getByRole('status').filter({ hasText: 'revoked' }).waitFor();
    expect(await statusOf(made)).toBe(401);
    await page.getByRole('region', { name: 'Tokens' }).getByText('No tokens yet.').waitFor();
    // The app's own token is untouched.
    expect(await statusOf(await tokenIn(page))).toBe(200);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('changes the password: the old one is refused afterwards, other sessions end, this browser goes on', async () => {
    const username = await newPerson();
    const elsewhere = new WebSession(fixture.server.origin);
    await elsewhere.signIn(username, PASSWORD);
    const { page, context, problems } = await signedIn(username);
    const before = await tokenIn(page);
    await page.getByRole('link', { name: 'Settings' }).click();
    const password = page.getByRole('region', { name: 'Password' });
    await password.getByLabel('Current password').fill('a wrong guess');
    await password.getByLabel('New password').fill('a brand new passphrase');
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByRole('status').filter({ hasText: 'the current password is wrong' }).waitFor();

    await password.getByLabel('Current password').fill(PASSWORD);
    await password.getByLabel('New password').fill('a brand new passphrase');
    await password.getByRole('button', { name: 'Change password' }).click();
    await password.getByRole('status').filter({ hasText: 'Password changed' }).waitFor();

    const old = new WebSession(fixture.server.origin);
    expect((await old.signInAt('/login', username, PASSWORD)).status).toBe(401);
    expect(
      (await new WebSession(fixture.server.origin).signInAt('/login', username, 'a brand new passphrase')).status,
    ).toBe(303);
    // The other browser's session ended; this browser's old token ended with its old session.
    expect((await elsewhere.get('/account/session')).status).toBe(401);
    expect(await statusOf(before)).toBe(401);
    const after = await tokenIn(page);
    expect(after).not.toBe(before);
    expect(await statusOf(after)).toBe(200);
    await page.getByRole('link', { name: /^Inbox/ }).click();
    await page.getByRole('textbox', { name: 'Add a task' }).fill('After the change');
    await page.getByRole('textbox', { name: 'Add a task' }).press('Enter');
    await eventually(async () => {
      const listed = await request(fixture.server.origin, { path: '/v1/tasks', headers: oauth(after) });
      expect(listed.text).toContain('After the change');
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists a connected app and revokes it: its token is refused at once', async () => {
    const username = await newPerson();
    const resultPage = `${fixture.server.origin}/oauth/auth_result.html`;
    const client = await addClient({ dataDir: fixture.dataDir }, 'Vim plugin', [resultPage], ['--legacy-implicit']);
    const { page, context, problems } = await signedIn(username);
    const authorize = new URL('/oauth/authorize', fixture.server.origin);
    authorize.search = new URLSearchParams({
      response_type: 'token',
      client_id: client.id,
      redirect_uri: resultPage,
      scope: 'read',
    }).toString();
    await page.goto(authorize.toString());
    await page.getByRole('button', { name: 'Allow' }).click();
    const appToken = await page.getByRole('textbox', { name: 'Access token' }).inputValue();
    expect(await statusOf(appToken)).toBe(200);

    await page.goto(`${fixture.server.origin}/#/settings`);
    const apps = page.getByRole('region', { name: 'Connected apps' });
    const item = apps.getByRole('listitem').filter({ hasText: 'Vim plugin' });
    await item.waitFor();
    expect(await item.textContent()).toContain('may read your tasks');
    // An app's token is listed with the app, not among the person's own tokens.
    await page.getByRole('region', { name: 'Tokens' }).getByText('No tokens yet.').waitFor();
    await apps.getByRole('button', { name: 'Revoke Vim plugin' }).click();
    await apps.getByText('No apps are connected to your account.').waitFor();
    expect(await statusOf(appToken)).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('takes a new token from its session when the server refuses the one it has', async () => {
    const username = await newPerson();
    const { page, context, problems } = await signedIn(username);
    const first = await tokenIn(page);
    // After `--`: a token may start with `-`, which would read as an option.
    const revoked = await runCli(['token', 'revoke', '--data-dir', fixture.dataDir, '--', first]);
    expect(revoked.code, revoked.stderr).toBe(0);
    // A round now, as on focus, rather than when the app's held wait runs out (20 s, live.ts).
    await page.evaluate(`dispatchEvent(new Event('focus'))`);
    await eventually(async () => expect(await tokenIn(page)).not.toBe(first));
    const field = page.getByRole('textbox', { name: 'Add a task' });
    await field.fill('Still here');
    await field.press('Enter');
    const second = await tokenIn(page);
    await eventually(async () => {
      const listed = await request(fixture.server.origin, { path: '/v1/tasks', headers: oauth(second) });
      expect(listed.text).toContain('Still here');
    });
    expect(await page.getByText('Your session has ended').count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  // Each list was asked for once, when Settings opened: one the server could not be reached for
  // then (offline, or E503 while it was busy) stayed "not shown" until a reload.
  it('shows the Settings lists it could not reach offline once back online, without a reload', async () => {
    const username = await newPerson();
    const { page, context, problems } = await signedIn(username);
    await context.setOffline(true);
    await page.getByRole('link', { name: 'Settings' }).click();
    for (const list of ['Tokens', 'Apps', 'Webhooks']) {
      await page.getByText(`${list} not shown: the server cannot be reached.`).waitFor();
    }
    // Said once: no "Loading …" beside the failure, as if the list were on its way.
    expect(await page.getByText('Loading', { exact: false }).count()).toBe(0);
    await context.setOffline(false);
    await page.getByRole('region', { name: 'Tokens' }).getByText('No tokens yet.').waitFor();
    await page.getByText('No apps are connected to your account.').waitFor();
    await page.getByRole('region', { name: 'Webhooks' }).getByText('No webhooks yet.', { exact: false }).waitFor();
    expect(await page.getByText('not shown', { exact: false }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("signs out: the browser's copy is gone, the token no longer works, and the sign-in page shows", async () => {
    const username = await newPerson();
    const { page, context, problems } = await signedIn(username);
    await page.getByRole('textbox', { name: 'Add a task' }).fill('Private');
    await page.getByRole('textbox', { name: 'Add a task' }).press('Enter');
    await page.getByRole('checkbox', { name: 'Complete Private' }).waitFor();
    const token = await tokenIn(page);
    await eventually(async () => {
      const listed = await request(fixture.server.origin, { path: '/v1/tasks', headers: oauth(token) });
      expect(listed.text).toContain('Private');
    });
    const databases = `indexedDB.databases().then((all) => ({ databases: all.map((database) => database.name), token: sessionStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)}) }))`;
    expect(await page.evaluate(databases)).toMatchObject({ databases: ['task-service'] });

    await page.getByRole('link', { name: 'Sign out' }).click();
    await page.waitForURL(`${fixture.server.origin}/login?signed_out=1`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor();
    expect(await page.evaluate(databases)).toEqual({ databases: [], token: null });
    expect(await statusOf(token)).toBe(401);
    // Opening the app again asks to sign in.
    await page.goto(`${fixture.server.origin}/`);
    await page.waitForURL(/\/login\?next=/);
    expect(problems).toEqual([]);
    await context.close();
  });
});
