import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { newAccount } from '../../e2e/support/accounts.js';
import { oauth, request } from '../../e2e/support/http.js';
import { makeTempDir, startServe, type ServeProcess } from '../../e2e/support/processes.js';
import { bodyOf, taskSchema, type WireTask } from '../../e2e/support/wire.js';

/** Debian's Chromium, never a downloaded browser (docs/web.md). */
export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where the app reads its token (web/src/token.ts). */
export const TOKEN_STORAGE_KEY = 'task-service.token';

/** How long a browser test waits for what it expects before failing. */
export const EXPECT_TIMEOUT_MS = 10_000;

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/** One real `task-service serve` over a socket and one browser, shared by a test file's tests. */
export interface WebFixture {
  readonly server: ServeProcess;
  readonly dataDir: string;
  readonly browser: Browser;
}

export async function startWebFixture(): Promise<WebFixture> {
  const dataDir = await makeTempDir('web');
  const [server, browser] = await Promise.all([startServe({ dataDir, http: true }), launchChromium()]);
  return { server, dataDir, browser };
}

let users = 0;

/** A new account with a write token, made with the real command line. */
export async function newUser(fixture: WebFixture, extra: readonly string[] = []): Promise<string> {
  users += 1;
  return newAccount({ dataDir: fixture.dataDir }, `web${process.pid}x${users}`, extra);
}

export interface OpenApp {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught errors and dialogs (an `alert` would mean a script ran): a test ends with none. */
  readonly problems: string[];
}

/**
 * A fresh browser profile with the token where sign-in leaves it (the tab's session storage),
 * showing the app once its navigation is there.
 */
export async function openApp(fixture: WebFixture, token: string): Promise<OpenApp> {
  const context = await fixture.browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.setDefaultTimeout(EXPECT_TIMEOUT_MS);
  await page.goto(`${fixture.server.origin}/`);
  // Page-side code is given as text: the tests are type-checked without the DOM's types.
  await page.evaluate(`sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(token)})`);
  await page.reload();
  await page.getByRole('navigation').waitFor();
  await page.getByRole('list', { name: 'Inbox' }).waitFor({ state: 'attached' });
  // The service worker keeps the page for offline reloads; tests start once it has.
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
  return { context, page, problems };
}

/** Another client (curl, a phone) writing a task through the API with its own token. */
export async function postTask(fixture: WebFixture, token: string, body: Record<string, unknown>): Promise<WireTask> {
  return bodyOf(await request(fixture.server.origin, { path: '/v1/tasks', headers: oauth(token), body }), taskSchema);
}

export async function getTasks(fixture: WebFixture, token: string): Promise<WireTask[]> {
  const response = await request(fixture.server.origin, { path: '/v1/tasks', headers: oauth(token) });
  const body: unknown = JSON.parse(response.text);
  if (typeof body !== 'object' || body === null || !('entries' in body) || !Array.isArray(body.entries)) {
    throw new Error(`not a task list: ${response.text}`);
  }
  return body.entries.map((entry: unknown) => taskSchema.parse(entry));
}

/** Retries `check` (vitest expectations inside) until it passes or the time is up. */
export async function eventually(check: () => Promise<void> | void, timeoutMs = EXPECT_TIMEOUT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
