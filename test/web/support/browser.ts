import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
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

/**
 * How long a browser test waits for what it expects before failing. With every test file running
 * at once on two cores, a first navigation of a fresh browser has taken over 10 s (a CI run of
 * issue #15's round); a wait that is met returns at once, so the margin costs a passing run nothing.
 */
export const EXPECT_TIMEOUT_MS = 20_000;

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

/** A fresh browser profile and tab, which records uncaught errors and dialogs. */
export async function openBrowser(fixture: WebFixture): Promise<OpenApp> {
  const context = await fixture.browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.setDefaultTimeout(EXPECT_TIMEOUT_MS);
  return { context, page, problems };
}

/**
 * Waits until the app shows the Inbox, and its service worker keeps the page (tests start once
 * it has: offline reloads need it).
 */
export async function waitForInbox(page: Page): Promise<void> {
  // Twice the usual wait for the first sight of the app: after a sign-in it follows the password
  // check (argon2, made to be slow) and the first listing, and with another browser test file
  // beside it on this shared 2-core machine, 10 s was once not enough.
  await page.getByRole('navigation').waitFor({ timeout: 2 * EXPECT_TIMEOUT_MS });
  await page.getByRole('list', { name: 'Inbox' }).waitFor({ state: 'attached' });
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
}

/**
 * Waits until the browser's copy holds a whole first listing: the app writes the settings into it
 * last, after the list shows. A test that reloads offline waits for it first (CI once reloaded
 * before it was written, and the reloaded app had no copy to show).
 */
export async function waitForKeptCopy(page: Page): Promise<void> {
  // Page-side code as text (no DOM types here); the app has made the database by now.
  const kept = `new Promise((resolve) => {
    const opened = indexedDB.open('task-service');
    opened.onerror = () => resolve(false);
    opened.onsuccess = () => {
      const database = opened.result;
      if (!database.objectStoreNames.contains('settings')) { database.close(); resolve(false); return; }
      const read = database.transaction('settings').objectStore('settings').get('settings');
      read.onerror = () => { database.close(); resolve(false); };
      read.onsuccess = () => { database.close(); resolve(read.result !== undefined); };
    };
  })`;
  await expect.poll(async () => page.evaluate(kept), { timeout: EXPECT_TIMEOUT_MS }).toBe(true);
}

/**
 * A fresh browser profile with a token made elsewhere (the CLI) where the app keeps its own (the
 * tab's session storage), showing the app: for tests about the app rather than about signing in.
 * The token is put there from the sign-in page, which runs none of the app's script.
 */
export async function openApp(fixture: WebFixture, token: string): Promise<OpenApp> {
  const opened = await openBrowser(fixture);
  const { page } = opened;
  await page.goto(`${fixture.server.origin}/login`);
  // Page-side code is given as text: the tests are type-checked without the DOM's types.
  await page.evaluate(`sessionStorage.setItem(${JSON.stringify(TOKEN_STORAGE_KEY)}, ${JSON.stringify(token)})`);
  await page.goto(`${fixture.server.origin}/`);
  await waitForInbox(page);
  return opened;
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

/**
 * `promise`, or a failure naming `what` once `ms` have passed: for the steps Playwright does not
 * bound itself (evaluating page code, closing a context, requests of the test's own).
 */
export async function bounded<T>(what: string, promise: Promise<T>, ms = 2 * EXPECT_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
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
