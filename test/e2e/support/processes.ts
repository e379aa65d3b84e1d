import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root (this file is test/e2e/support/processes.ts). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The built `task-service` command the e2e tests drive. */
export const CLI_SCRIPT = path.join(REPO_ROOT, 'dist', 'src', 'cli', 'index.js');

/**
 * Per-test time limit of the e2e files: each test starts several node processes, and the machine
 * (2 cores) runs the other suites at the same time.
 */
export const E2E_TEST_TIMEOUT_MS = 60_000;

/** Fails with a message that says what to do when the command has not been built. */
function requireBuiltCli(): void {
  if (!existsSync(CLI_SCRIPT)) {
    throw new Error(
      `the e2e tests run the built command ${CLI_SCRIPT}, which does not exist: ` +
        'run "npm run build" first (npm test builds before it runs vitest)',
    );
  }
}

/** Every child and temp folder a test made, so `cleanUpProcesses` can always end and remove them. */
const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

// Should the test worker end without its after-hooks (a crash, a timeout), no server outlives it.
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/** A new empty folder under the system temp folder, removed by `cleanUpProcesses`. */
export async function makeTempDir(label = 'e2e'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `task-service-${label}-`));
  tempDirs.add(dir);
  return dir;
}

/** Kills (SIGKILL) every child still running, waits for each to go, and removes the temp folders. */
export async function cleanUpProcesses(): Promise<void> {
  const running = [...children];
  children.clear();
  await Promise.all(
    running.map(async (child) => {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGKILL');
        await gone;
      }
    }),
  );
  const dirs = [...tempDirs];
  tempDirs.clear();
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * A port that was free a moment ago: the CLI cannot be told to listen on port 0, so a server
 * binds 0, the kernel names a port, and the server closes again.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('no TCP address for a port probe'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/** The environment of the test run without any of the service's own variables, so flags decide. */
function childEnv(extra: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith('TASK_SERVICE_') || name === 'DATABASE_URL' || name === 'NODE_OPTIONS') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** `node <args>`, tracked so `cleanUpProcesses` ends it. */
function spawnNode(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
  user?: { readonly uid: number; readonly gid: number },
): ChildProcess {
  const child = spawn(process.execPath, [...args], {
    cwd,
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(user ?? {}),
  });
  // A command that exits before reading its standard input makes writing to it fail (EPIPE);
  // its exit code and output tell what happened.
  child.stdin?.on('error', () => undefined);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function spawnCli(
  args: readonly string[],
  cwd: string,
  env: Readonly<Record<string, string>>,
  script?: string,
): ChildProcess {
  if (script === undefined) requireBuiltCli();
  return spawnNode([script ?? CLI_SCRIPT, ...args], cwd, env);
}

export interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function exitOf(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

export interface CliResult extends Exit {
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** Written to standard input, which is then closed (it is closed at once without it). */
  readonly stdin?: string;
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
  /** Run as this user and group (the test runs as root: to meet file permissions as others do). */
  readonly user?: { readonly uid: number; readonly gid: number };
}

/** Runs one admin command to its end: `task-service <args>`. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  requireBuiltCli();
  return runNode([CLI_SCRIPT, ...args], options);
}

/** A command still running: its output so far, and its end. */
export interface RunningCli {
  /** Standard error so far. */
  stderr(): string;
  /** Waits until standard error matches `pattern` (a line the command prints while it waits), and returns the match. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The whole run, once the command ends by itself. */
  readonly result: Promise<CliResult>;
}

/** Starts `task-service <args>` and leaves it running: for commands that wait for something (login). */
export function startCli(args: readonly string[], options: CliOptions = {}): RunningCli {
  requireBuiltCli();
  let stderr = '';
  const child = spawnNode([CLI_SCRIPT, ...args], options.cwd ?? REPO_ROOT, options.env ?? {}, options.user);
  let stdout = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin?.end(options.stdin ?? '');
  const result = (async (): Promise<CliResult> => {
    const exit = await exitOf(child);
    if (child.stdout !== null && !child.stdout.closed)
      await new Promise((resolve) => child.stdout?.once('close', resolve));
    if (child.stderr !== null && !child.stderr.closed)
      await new Promise((resolve) => child.stderr?.once('close', resolve));
    return { ...exit, stdout, stderr };
  })();
  return {
    stderr: () => stderr,
    async waitForStderr(pattern, timeoutMs = 15_000) {
      await waitFor(() => pattern.test(stderr) || child.exitCode !== null, timeoutMs);
      const match = pattern.exec(stderr);
      if (match === null)
        throw new Error(`task-service ${args.join(' ')} ended without printing ${pattern}:\n${stderr}`);
      return match;
    },
    result,
  };
}

/** Runs `node <args>` to its end. */
export async function runNode(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const child = spawnNode(args, options.cwd ?? REPO_ROOT, options.env ?? {}, options.user);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin?.end(options.stdin ?? '');
  const timeoutMs = options.timeoutMs ?? 15_000;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exit = await exitOf(child);
  clearTimeout(timer);
  // 'exit' may come before the pipes are drained; 'close' says they are.
  if (child.stdout !== null && !child.stdout.closed)
    await new Promise((resolve) => child.stdout?.once('close', resolve));
  if (child.stderr !== null && !child.stderr.closed)
    await new Promise((resolve) => child.stderr?.once('close', resolve));
  if (exit.signal === 'SIGKILL') throw new Error(`node ${args.join(' ')} took over ${timeoutMs} ms\n${stderr}`);
  return { ...exit, stdout, stderr };
}

/** A line of the service's log (pino writes one JSON object a line to standard output). */
const logLineSchema = z.looseObject({ level: z.number(), time: z.number(), msg: z.string() });
export type LogLine = z.infer<typeof logLineSchema>;

/** Every non-empty line of `text` as a log line; throws naming the first line that is not one. */
export function parseLogLines(text: string): LogLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
      const parsed = logLineSchema.safeParse(value);
      if (!parsed.success) throw new Error(`not a pino log line: ${line}`);
      return parsed.data;
    });
}

export interface ServeOptions {
  readonly dataDir: string;
  /** Serve plain HTTP (`--http`); HTTPS otherwise. */
  readonly http?: boolean;
  readonly databaseUrl?: string;
  /** The database URL is a pooler in transaction mode (--database-pooled). */
  readonly databasePooled?: boolean;
  readonly args?: readonly string[];
  readonly readyTimeoutMs?: number;
  /** Listen on this port (from `freePort`); a free one is found otherwise. */
  readonly port?: number;
  /**
   * Give port, HTTP and database through the environment (TASK_SERVICE_PORT, …) instead of
   * flags, and no data folder at all: it is then `./data` in the working folder, `dataDir`.
   */
  readonly viaEnvironment?: boolean;
  /** More environment variables for the process (flags given here still win over them). */
  readonly env?: Readonly<Record<string, string>>;
  /** Another copy's built command (bin/task-service.js of an installed copy); CLI_SCRIPT otherwise. */
  readonly script?: string;
}

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly port: number;
  /** `http://127.0.0.1:<port>` or `https://…`. */
  readonly origin: string;
  /** What the process wrote so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited and its pipes are drained. */
  readonly exited: Promise<Exit>;
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

const READY_MESSAGE = 'task-service listening';

class PortTakenError extends Error {}

async function startServeOnce(options: ServeOptions, port: number): Promise<ServeProcess> {
  const args = ['serve'];
  const env: Record<string, string> = { ...options.env };
  if (options.viaEnvironment === true) {
    env['TASK_SERVICE_PORT'] = String(port);
    if (options.http === true) env['TASK_SERVICE_HTTP'] = '1';
    if (options.databaseUrl !== undefined) env['TASK_SERVICE_DATABASE_URL'] = options.databaseUrl;
    if (options.databasePooled === true) env['TASK_SERVICE_DATABASE_POOLED'] = '1';
  } else {
    args.push('--host', '127.0.0.1', '--port', String(port), '--data-dir', options.dataDir);
    if (options.http === true) args.push('--http');
    if (options.databaseUrl !== undefined) args.push('--database-url', options.databaseUrl);
    if (options.databasePooled === true) args.push('--database-pooled');
  }
  args.push(...(options.args ?? []));
  const child = spawnCli(args, options.dataDir, env, options.script);
  let stdout = '';
  let stderr = '';
  const drained = Promise.all([
    new Promise((resolve) => child.stdout?.once('close', resolve)),
    new Promise((resolve) => child.stderr?.once('close', resolve)),
  ]);
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = exitOf(child).then(async (exit) => {
    await drained;
    return exit;
  });
  const timeoutMs = options.readyTimeoutMs ?? 20_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not report "${READY_MESSAGE}" within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    let ready = false;
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      // Looked for until found only: a server logging heavily later costs nothing here. The
      // words are the same in a JSON line and in a pretty one (--log-format pretty).
      if (!ready && stdout.includes(READY_MESSAGE)) {
        ready = true;
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((exit) => {
      clearTimeout(timer);
      const output = `${stdout}\n${stderr}`;
      if (output.includes('EADDRINUSE')) reject(new PortTakenError(output));
      else reject(new Error(`serve exited (${exit.code ?? exit.signal}) before listening\n${output}`));
    });
  });
  const origin = `${options.http === true ? 'http' : 'https'}://127.0.0.1:${port}`;
  return {
    child,
    port,
    origin,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Starts `task-service serve` on a free port and resolves once its log says it listens. */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  if (options.port !== undefined) return startServeOnce(options, options.port);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startServeOnce(options, await freePort());
    } catch (error) {
      // Another process may take the probed port between the probe and the listen.
      if (!(error instanceof PortTakenError) || attempt === 3) throw error;
    }
  }
}

/** Polls `condition` every 10 ms until it holds; throws after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
