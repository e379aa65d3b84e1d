import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../e2e/support/processes.js';
import { TEST_DATABASE_BASE_URL } from './postgres.js';

/** Debian's PgBouncer (`apt-get install pgbouncer`; .ci/run installs it). */
export const PGBOUNCER = '/usr/sbin/pgbouncer';

/**
 * The unprivileged user PgBouncer runs as when the tests run as root (it refuses to run as root):
 * the PostgreSQL server's own, which exists wherever the test server is installed.
 */
const RUN_AS = 'postgres';

/**
 * Server connections per database and user: few, so that transactions of different clients (and
 * of different service processes) take turns on the same server sessions, and anything one left
 * set on a session would be met by the next.
 */
const DEFAULT_POOL_SIZE = 2;

export interface PgBouncerOptions {
  /** Where the server is; the test PostgreSQL server by default. */
  readonly server?: { readonly host: string; readonly port: number };
  readonly poolSize?: number;
}

export interface PgBouncer {
  readonly port: number;
  /** `url` (a database of the server behind it) as reached through the pooler. */
  route(url: string): string;
  /** What PgBouncer logged so far. */
  log(): string;
  /** Stops PgBouncer at once (its clients are cut) and removes its files. */
  stop(): Promise<void>;
}

function testServer(): { host: string; port: number } {
  const base = new URL(TEST_DATABASE_BASE_URL);
  return { host: base.hostname, port: Number(base.port || 5432) };
}

/**
 * The settings of the PgBouncer of the tests: transaction pooling in front of every database of
 * the server (`*`), no password (the test server trusts local connections), and failing fast. A
 * query waits at most 3 s for a server connection: while the server is unreachable PgBouncer
 * holds every query that long (not 120 s), and the outage tests want E503 within 6 s. A server
 * that could not be reached is tried again after 1 s, not 15.
 */
function iniFile(dir: string, port: number, options: PgBouncerOptions): string {
  const server = options.server ?? testServer();
  return [
    '[databases]',
    `* = host=${server.host} port=${server.port}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    `default_pool_size = ${options.poolSize ?? DEFAULT_POOL_SIZE}`,
    'max_client_conn = 500',
    'auth_type = trust',
    `auth_file = ${path.join(dir, 'userlist.txt')}`,
    'query_wait_timeout = 3',
    'server_login_retry = 1',
    'logfile =',
    'pidfile =',
    '',
  ].join('\n');
}

/** Everything started here, so that none outlives the test worker. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts a real PgBouncer in transaction mode on a free port, with its configuration in a temp
 * folder of its own. Fails (never skips) when PgBouncer is not installed: the tests that use it
 * are part of the suite.
 */
export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  if (!existsSync(PGBOUNCER)) {
    throw new Error(`${PGBOUNCER} does not exist: install PgBouncer (apt-get install pgbouncer), as .ci/run does`);
  }
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(options, await freePort());
    } catch (error) {
      // Another process may take the probed port between the probe and the listen.
      if (!(error instanceof PortTakenError) || attempt === 3) throw error;
    }
  }
}

class PortTakenError extends Error {}

async function startOnce(options: PgBouncerOptions, port: number): Promise<PgBouncer> {
  const dir = await mkdtemp(path.join(tmpdir(), 'task-service-pgbouncer-'));
  // Read by PgBouncer after it has become RUN_AS.
  await chmod(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  await writeFile(ini, iniFile(dir, port, options), { mode: 0o644 });
  await writeFile(path.join(dir, 'userlist.txt'), '"postgres" ""\n', { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  const child = spawn(PGBOUNCER, [...(asRoot ? ['-u', RUN_AS] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let log = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      running.delete(child);
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      // SIGTERM is PgBouncer's immediate shutdown (SIGINT would wait for its clients to leave).
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await listening(child, port, () => log, exited);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    route(url) {
      const routed = new URL(url);
      routed.host = `127.0.0.1:${port}`;
      return routed.toString();
    },
    log: () => log,
    stop,
  };
}

/** Resolves once PgBouncer's log says it listens on `port`; rejects with its log if it ends first. */
async function listening(child: ChildProcess, port: number, log: () => string, exited: Promise<void>): Promise<void> {
  const deadline = Date.now() + 10_000;
  let ended = false;
  void exited.then(() => (ended = true));
  while (!log().includes(`listening on 127.0.0.1:${port}`)) {
    if (ended) {
      const output = log();
      if (output.includes('Address already in use')) throw new PortTakenError(output);
      throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}) before listening:\n${output}`);
    }
    if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on ${port} within 10 s:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
