/**
 * `user passwd` at a terminal (issue #26, item 10): the password is asked for twice, not echoed,
 * and two that differ change nothing. The terminal is a real pseudo-terminal (util-linux's script).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareStore } from './support/accounts.js';
import { addUserWithPassword } from './support/auth-server.js';
import {
  CLI_SCRIPT,
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  waitFor,
} from './support/processes.js';
import { WebSession } from './support/web-session.js';

const SCRIPT = '/usr/bin/script';

/** `user passwd` in a pseudo-terminal, typing each answer once its prompt shows: what the terminal showed, and the exit code. */
async function passwdAtTerminal(
  dataDir: string,
  answers: readonly string[],
): Promise<{ shown: string; code: number | null }> {
  const command = [process.execPath, CLI_SCRIPT, 'user', 'passwd', 'alice', '--data-dir', dataDir].join(' ');
  const terminal = spawn(SCRIPT, ['-qefc', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let shown = '';
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  // 'close': the exit, and everything it wrote read.
  const exited = new Promise<number | null>((resolve) => terminal.once('close', resolve));
  const prompts = [/New password: $/, /Repeat the new password: $/];
  for (const [index, answer] of answers.entries()) {
    const prompt = prompts[index] ?? /$^/;
    await waitFor(() => prompt.test(shown) || terminal.exitCode !== null, 15_000);
    terminal.stdin.write(`${answer}\r`);
  }
  const code = await exited;
  return { shown, code };
}

describe.skipIf(!existsSync(SCRIPT))('user passwd at a terminal', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  it('asks twice, refuses two that differ (changing nothing), and takes two that match', async () => {
    const dataDir = await makeTempDir('passwd-tty');
    await prepareStore({ dataDir });
    await addUserWithPassword({ dataDir }, 'alice', 'the first passphrase');

    const differ = await passwdAtTerminal(dataDir, ['a new passphrase', 'a new passfrase']);
    expect(differ.code).toBe(2);
    expect(differ.shown).toContain('New password: ');
    expect(differ.shown).toContain('Repeat the new password: ');
    expect(differ.shown).toContain('task-service: the two passwords differ: nothing changed; run user passwd again');
    // Nothing typed is shown.
    expect(differ.shown).not.toContain('passphrase');
    expect(differ.shown).not.toContain('passfrase');

    const server = await startServe({ dataDir, http: true });
    const stillOld = new WebSession(server.origin);
    expect((await stillOld.signInAt('/login', 'alice', 'the first passphrase')).status).toBe(303);

    const same = await passwdAtTerminal(dataDir, ['a new passphrase', 'a new passphrase']);
    expect(same.code, same.shown).toBe(0);
    expect(same.shown).toContain('password of alice changed');
    expect((await new WebSession(server.origin).signInAt('/login', 'alice', 'a new passphrase')).status).toBe(303);
    expect((await new WebSession(server.origin).signInAt('/login', 'alice', 'the first passphrase')).status).toBe(401);
  });
});
