/**
 * The README's commands run as written (issue #26, "Done when"), where a test can run them: its
 * first session with curl, and its OAuth client registrations, each block taken from the README
 * itself and run by bash in a folder where `serve` runs. Two things only are put to the test's
 * own: the port (a free one, never 8443) and `npx task-service`, which is this checkout's built
 * command (npx finds it so in a clone). What cannot run here is left out: `npm ci` (the install
 * is test/deploy/install.test.ts), the browser sign-in of the terminal client, and commands on
 * the README's example ids.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLI_SCRIPT,
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  REPO_ROOT,
  startServe,
  type ServeProcess,
} from '../e2e/support/processes.js';

const README = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');

/** The README's shell blocks, as written. */
const BLOCKS = [...README.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');

/** The one block that holds `marker`. */
function blockWith(marker: string): string {
  const found = BLOCKS.filter((block) => block.includes(marker));
  expect(found, `README.md has one sh block with ${marker}`).toHaveLength(1);
  return found[0] ?? '';
}

/** Runs a block by bash in `folder`, against the server on `port`; stops at the first failing command. */
function runBlock(block: string, folder: string, port: number): { status: number | null; stdout: string; stderr: string } {
  expect(block).toContain('8443');
  const script = [
    'set -euo pipefail',
    // `npx task-service …` in a clone: its own built command.
    `npx() { if [ "$1" = task-service ]; then shift; node ${JSON.stringify(CLI_SCRIPT)} "$@"; else command npx "$@"; fi; }`,
    block.replaceAll('8443', String(port)),
  ].join('\n');
  const ran = spawnSync('bash', ['-c', script], { cwd: folder, encoding: 'utf8', timeout: E2E_TEST_TIMEOUT_MS });
  return { status: ran.status, stdout: ran.stdout, stderr: ran.stderr };
}

describe("the README's commands, as written", { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  let folder: string;
  let server: ServeProcess;
  beforeAll(async () => {
    // `npm start` in a clone: serve, HTTPS with the certificate it makes in ./data.
    folder = await makeTempDir('readme');
    server = await startServe({ dataDir: folder, viaEnvironment: true });
  });
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('"A first session with curl" runs, and answers as the README says', () => {
    const ran = runBlock(blockWith('TOKEN=$(npx task-service token create alice)'), folder, server.port);
    expect(ran.status, ran.stderr).toBe(0);
    // Every `api` call answered with JSON (curl -sS says any failure on standard error).
    const answers = ran.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(answers.length).toBeGreaterThanOrEqual(10);
    expect(ran.stdout).toContain('"title":"Buy milk &amp; eggs"');
    expect(ran.stdout).toContain('"has_more":false');
    expect(ran.stdout).toContain('"name":"Home &amp; Garden"');
    // The repeating task, completed, moved to its next occurrence at 09:00 local.
    expect(ran.stdout).toContain('"start_at":"2026-11-30 09:00:00 +0100"');
    // The deleted task comes back to the syncing client as a tombstone.
    expect(ran.stdout).toMatch(/"id":"t1"[^}]*"deleted":"2026-11-23 10:05:00 \+0100"/);
  });

  it('registering OAuth clients runs, each printing its id (and a confidential one its secret)', () => {
    const block = blockWith('npx task-service client add "My web app"')
      .split('\n')
      .filter((line) => line.includes('client add'))
      .join('\n');
    const ran = runBlock(block, folder, server.port);
    expect(ran.status, ran.stderr).toBe(0);
    // The web app and the old installed client are confidential (id, then secret); the desktop app public.
    expect(ran.stdout).toMatch(/^[0-9a-f]{24}\n[0-9a-f]{64}\n[0-9a-f]{24}\n[0-9a-f]{24}\n[0-9a-f]{64}\n$/);
  });
});
