import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A child process the bench started; only these are ever stopped, by their own id. */
export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly logFile: string;
  /** Resolves with the exit code (null when ended by a signal) once the process has exited. */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** The end of its log, for error messages. */
  logTail(): string;
}

const running = new Set<Child>();

/**
 * Starts a process with stdout and stderr going to a log file (cheaper than a pipe the bench
 * would have to drain while it measures, and readable after a failure).
 */
export function startChild(
  name: string,
  command: string,
  args: readonly string[],
  logFile: string,
  env?: NodeJS.ProcessEnv,
): Child {
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(command, args, { stdio: ['ignore', fd, fd], env: env ?? process.env });
  } finally {
    closeSync(fd);
  }
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start ${name} (${command})`);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => resolve(code));
  });
  const handle: Child = {
    name,
    pid,
    logFile,
    exited,
    stop: async (graceMs = 10_000) => {
      running.delete(handle);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    logTail: () => {
      try {
        return readFileSync(logFile, 'utf8').slice(-2000);
      } catch {
        return '';
      }
    },
  };
  running.add(handle);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** Stops every child still running (on failure or interruption), each by its own id. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => child.stop(3000)));
}

/** A TCP port free on loopback right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address === null || typeof address === 'string') reject(new Error('no port'));
        else resolve(address.port);
      });
    });
  });
}

/** Runs a command to its end and answers its output; for version queries, pgbench and the like. */
export function runCommand(
  command: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env ?? process.env });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', (error) => resolve({ code: -1, stdout, stderr: stderr + String(error) }));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
