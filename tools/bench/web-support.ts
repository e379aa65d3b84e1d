/** What the web app's benchmark and screenshots share: a real serve, the CLI, Chromium. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';

// Compiled to .bench/build/tools/bench/: the repository is four folders up.
export const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const CLI = path.join(REPO, 'dist', 'src', 'cli', 'index.js');
export const TOKEN_KEY = 'task-service.token';
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

export async function serve(dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--http', '--port', String(port), '--data-dir', dataDir, '--log-level', 'warn'],
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
