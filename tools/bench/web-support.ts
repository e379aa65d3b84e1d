/** What the web app's benchmark and screenshots share: a real serve, the CLI, Chromium. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';

// Compiled to .bench/build/tools/bench/: the repository is four folders up.
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = path.join(REPO, 'dist', 'src', 'cli', 'index.js');
const TOKEN_KEY = 'task-service.token';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const run = promisify(execFile);

export async function cli(dataDir: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, ...args, '--data-dir', dataDir]);
  return stdout.trim();
}

/** `user add <name> --password-stdin`: an account a person signs in to with that password. */
export async function addUserWithPassword(dataDir: string, username: string, password: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, 'user', 'add', username, '--password-stdin', '--data-dir', dataDir],
      (error) => (error === null ? resolve() : reject(error)),
    );
    child.stdin?.end(`${password}\n`);
  });
}

/** Signs in through the server's sign-in page, as a person does; the app opens after it. */
export async function signIn(page: Page, origin: string, username: string, password: string): Promise<void> {
  await page.goto(`${origin}/login?next=%2F`);
  await page.getByRole('textbox', { name: 'Username' }).fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${origin}/`);
}

/**
 * The app with a token made by the CLI, put where the app keeps its own (the tab's session
 * storage) from the sign-in page, which runs none of the app's script.
 */
export async function openWithToken(page: Page, origin: string, token: string): Promise<void> {
  await page.goto(`${origin}/login`);
  await page.evaluate(`sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)})`);
  await page.goto(`${origin}/`);
}

export async function serve(dataDir: string, port: number, extra: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--http', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn', ...extra],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child;
    } catch {
      if (Date.now() > deadline) throw new Error('serve did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export async function post(origin: string, token: string, body: unknown): Promise<void> {
  const answer = await fetch(`${origin}/v1/tasks`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`seeding failed: ${await answer.text()}`);
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS, headless: true });
}
