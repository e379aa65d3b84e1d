/**
 * `npm start` as the README gives it (issue #10, item 7): the server runs in the foreground, its
 * first lines say how to stop it, and a signal to the npm process (Ctrl-C, or a kill of it)
 * stops the server too, instead of leaving it running on the port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  freePort,
  makeTempDir,
  REPO_ROOT,
  waitFor,
} from './support/processes.js';

const listeningSchema = z.looseObject({ msg: z.literal('task-service listening'), pid: z.number(), stop: z.string() });

/** Whether a process of that id still runs. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The environment without the service's variables, so the flags decide. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('TASK_SERVICE_') && name !== 'DATABASE_URL'),
  );
}

const started: { npm: ChildProcess; serverPid: number | undefined }[] = [];

/** `npm start -- <flags>` from the repository; resolves with the listening line once it is logged. */
async function npmStart(): Promise<{ npm: ChildProcess; line: z.infer<typeof listeningSchema> }> {
  const dataDir = await makeTempDir('npm-start');
  const port = await freePort();
  const npm = spawn('npm', ['start', '--', '--http', '--port', String(port), '--data-dir', dataDir], {
    cwd: REPO_ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entry: (typeof started)[number] = { npm, serverPid: undefined };
  started.push(entry);
  let output = '';
  npm.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  let line: z.infer<typeof listeningSchema> | undefined;
  await waitFor(() => {
    for (const text of output.split('\n')) {
      if (!text.startsWith('{')) continue; // npm's own lines
      const parsed = listeningSchema.safeParse(JSON.parse(text));
      if (parsed.success) line = parsed.data;
    }
    return line !== undefined || npm.exitCode !== null;
  }, 30_000).catch((error: unknown) => {
    throw new Error(`npm start did not report listening: ${String(error)}\n${output}`);
  });
  if (line === undefined) throw new Error(`npm start exited before listening\n${output}`);
  entry.serverPid = line.pid;
  return { npm, line };
}

describe('npm start', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    for (const { npm, serverPid } of started) {
      if (serverPid !== undefined && running(serverPid)) process.kill(serverPid, 'SIGKILL');
      if (npm.exitCode === null && npm.signalCode === null) npm.kill('SIGKILL');
    }
    await cleanUpProcesses();
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`says how to stop it, and ${signal} to the npm process stops the server`, async () => {
      const { npm, line } = await npmStart();
      expect(line.stop).toContain('Ctrl-C');
      expect(line.stop).toContain(String(line.pid));
      expect(running(line.pid)).toBe(true);
      const npmExited = new Promise((resolve) => npm.once('exit', resolve));
      npm.kill(signal);
      await waitFor(() => !running(line.pid), 15_000).catch(() => {
        throw new Error(`the server (pid ${line.pid}) still runs after ${signal} to npm start`);
      });
      await npmExited;
    });
  }
});
