import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreArgs } from './support/accounts.js';
import { addClient, addUserWithPassword, makeStore, serveOn } from './support/auth-server.js';
import { oauth, request } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, type ServeProcess } from './support/processes.js';

/** Debian's Chromium, never a downloaded browser (see the project briefing). */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const PASSWORD = 'correct horse battery';

// The legacy implicit flow in a real browser, from the authorize URL to the result page showing
// the token: the pages' accessible names, the form posts, the redirects and the fragment script.
describe('the implicit flow in Chromium', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let store: StoreArgs;
  let server: ServeProcess;
  let browser: Browser;
  let authorizeUrl: string;

  beforeAll(async () => {
    ({ store } = await makeStore('sqlite'));
    server = await serveOn(store);
    await addUserWithPassword(store, 'alice', PASSWORD);
    const resultPage = `${server.origin}/oauth/auth_result.html`;
    const client = await addClient(store, 'Chrome extension', [resultPage], ['--legacy-implicit']);
    authorizeUrl =
      `${server.origin}/oauth/authorize?response_type=token&client_id=${client.id}` +
      `&redirect_uri=${encodeURIComponent(resultPage)}&state=ext`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    await cleanUpProcesses();
  });

  it('signs in, allows, and shows the token on the result page; Deny shows the refusal', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorizeUrl);
    await expect.poll(() => page.url()).toContain('/login?next=');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('button', { name: 'Allow' }).waitFor({ timeout: 10_000 });
    expect(await page.getByText('Chrome extension').count()).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Allow' }).click();

    await page.waitForURL(/\/oauth\/auth_result\.html#access_token=/);
    const field = page.getByLabel('Access token');
    await expect.poll(() => field.inputValue()).toMatch(/^[0-9a-f]{64}$/);
    const token = await field.inputValue();
    expect(page.url().split('access_token=')[1]?.split('&')[0]).toBe(token);
    expect(await page.getByText('the authorization was refused').isVisible()).toBe(false);
    expect((await request(server.origin, { path: '/v1/tasks', headers: oauth(token) })).status).toBe(200);

    // Another person, who refuses.
    await addUserWithPassword(store, 'bob', PASSWORD);
    const other = await browser.newContext();
    const refusing = await other.newPage();
    await refusing.goto(authorizeUrl);
    await refusing.getByLabel('Username').fill('bob');
    await refusing.getByLabel('Password').fill(PASSWORD);
    await refusing.getByRole('button', { name: 'Sign in' }).click();
    await refusing.getByRole('button', { name: 'Deny' }).click();
    await refusing.waitForURL(/\/oauth\/auth_result\.html#error=access_denied/);
    await expect.poll(() => refusing.getByText('the authorization was refused').isVisible()).toBe(true);
    expect(await refusing.getByLabel('Access token').isVisible()).toBe(false);
    await other.close();
    await context.close();
  });
});
