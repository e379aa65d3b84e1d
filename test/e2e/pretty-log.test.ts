/**
 * The log as a person meets it (issue #26, item 1): `serve` in a terminal writes short lines, the
 * listening line first, saying how to stop it and the pid; in a pipe (journald, a container, a
 * file) JSON lines, or whichever `--log-format` asks for. The terminal is a real pseudo-terminal:
 * util-linux's `script` runs the command in one.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { request } from './support/http.js';
import {
  CLI_SCRIPT,
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  freePort,
  makeTempDir,
  parseLogLines,
  startServe,
  waitFor,
} from './support/processes.js';

const SCRIPT = '/usr/bin/script';

// Colours, as pino-pretty writes them for a terminal.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

/** `serve` in a pseudo-terminal until `whileRunning` is done: its lines, colours taken out. */
async function serveInTerminal(
  flags: readonly string[],
  whileRunning: (origin: string) => Promise<void>,
): Promise<string[]> {
  const dataDir = await makeTempDir('pty');
  const port = await freePort();
  const command = [
    process.execPath,
    CLI_SCRIPT,
    'serve',
    '--http',
    '--port',
    String(port),
    '--data-dir',
    dataDir,
    ...flags,
  ];
  // -q: no "Script started" lines; -e: its exit code; -f: flush as written; /dev/null: no typescript file.
  const terminal = spawn(SCRIPT, ['-qefc', command.join(' '), '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  try {
    await waitFor(() => output.includes('task-service listening'), 20_000);
    await whileRunning(`http://127.0.0.1:${port}`);
    await waitFor(() => /GET \/healthz|"path":"\/healthz"/.test(output));
  } finally {
    const gone = new Promise((resolve) => terminal.once('exit', resolve));
    // Ctrl-C, as a person stops it.
    terminal.stdin.write('\u0003');
    await gone;
  }
  return output
    .replace(ANSI, '')
    .replaceAll('^C', '') // the terminal's echo of the Ctrl-C
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '');
}

describe.skipIf(!existsSync(SCRIPT))('the log in a terminal and in a pipe', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterAll(async () => {
    await cleanUpProcesses();
  });

  const healthz = async (origin: string): Promise<void> => {
    expect((await request(origin, { path: '/healthz' })).status).toBe(200);
  };

  it('in a terminal: short lines, the first saying where it listens, how to stop it and its pid', async () => {
    const lines = await serveInTerminal([], healthz);
    expect(lines[0]).toMatch(
      /^\[\d\d:\d\d:\d\d\] INFO: task-service listening on http:\/\/127\.0\.0\.1:\d+ — stop with Ctrl-C \(pid \d+\) engine=sqlite$/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: GET \/healthz 200 \d+\.\d ms$/));
    expect(lines).toContainEqual(expect.stringMatching(/INFO: stopping: finishing requests in flight signal=SIGINT/));
    for (const line of lines) {
      expect(line).not.toMatch(/^\{/);
      expect(line.length).toBeLessThan(160);
    }
  });

  it('in a terminal with --log-format json: JSON lines all the same', async () => {
    const lines = await serveInTerminal(['--log-format', 'json'], healthz);
    const log = parseLogLines(lines.join('\n'));
    expect(log[0]?.msg).toBe('task-service listening');
    expect(log.some((line) => line.msg === 'response' && line['path'] === '/healthz')).toBe(true);
  });

  it('in a pipe: JSON lines, or pretty ones with --log-format pretty', async () => {
    const piped = await startServe({ dataDir: await makeTempDir('pipe'), http: true });
    expect(parseLogLines(piped.stdout())[0]?.msg).toBe('task-service listening');
    const pretty = await startServe({
      dataDir: await makeTempDir('pipe'),
      http: true,
      args: ['--log-format', 'pretty'],
    });
    await healthz(pretty.origin);
    await waitFor(() => pretty.stdout().includes('GET /healthz'));
    const [first = '', ...rest] = pretty.stdout().trimEnd().split('\n');
    expect(first).toMatch(/INFO: task-service listening on http:\/\/127\.0\.0\.1:\d+ — stop with Ctrl-C \(pid \d+\)/);
    // No colours where nobody reads them as such.
    expect(pretty.stdout()).not.toMatch(ANSI);
    expect(rest.some((line) => / GET \/healthz 200 /.test(line))).toBe(true);
  });
});
