import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Answer } from './http-client.js';
import { waitUntilAnswering } from './http-client.js';
import { freePort, startChild, type Child } from './processes.js';

// Compiled to .bench/build/tools/bench/: the repository is four folders up.
const TASK_SERVICE_BIN = fileURLToPath(new URL('../../../../bin/task-service.js', import.meta.url));
const LIMIT_SERVER = fileURLToPath(new URL('./limit-server.js', import.meta.url));

/** A server process the bench drives: where it listens and how to stop it. */
export interface Server {
  readonly name: string;
  readonly port: number;
  readonly child: Child;
  /** The command name of processes that do part of its work (PostgreSQL's backends), if any. */
  readonly companion?: string;
  stop(): Promise<void>;
}

export type ServiceStore =
  | { readonly engine: 'sqlite'; readonly dataDir: string }
  | { readonly engine: 'postgres'; readonly url: string; readonly dataDir: string };

/** The environment without the service's own variables, so a developer's settings do not leak in. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('TASK_SERVICE_') && name !== 'DATABASE_URL') env[name] = value;
  }
  return env;
}

async function started(
  name: string,
  child: Child,
  port: number,
  healthPath: string,
  companion?: string,
): Promise<Server> {
  let gone = false;
  void child.exited.then(() => (gone = true));
  try {
    await waitUntilAnswering(port, { method: 'GET', path: healthPath, headers: {} }, 60_000, () => gone);
  } catch (error) {
    await child.stop();
    throw new Error(`${name} did not start: ${String(error)}\n${child.logTail()}`, { cause: error });
  }
  return { name, port, child, ...(companion === undefined ? {} : { companion }), stop: () => child.stop() };
}

/**
 * The real `task-service serve --http` with its default settings (synchronous=FULL, log level
 * info; its log goes to a file), on loopback and a free port, but for the cap on one account's
 * records: D adds 100 tasks to one account per request, past the default cap within one run.
 */
export async function startTaskService(
  name: string,
  store: ServiceStore,
  logDir: string,
  extraArgs: readonly string[] = [],
): Promise<Server> {
  const port = await freePort();
  // Where the CPU of a load goes, thread by thread, for analysis.md (docs/benchmarks.md, "How").
  const profileDir = process.env['BENCH_CPU_PROFILE_DIR'];
  const args = [
    ...(profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]),
    TASK_SERVICE_BIN,
    'serve',
    '--http',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--data-dir',
    store.dataDir,
    '--max-records',
    String(BENCH_MAX_RECORDS),
  ];
  if (store.engine === 'postgres') args.push('--database-url', store.url);
  args.push(...extraArgs);
  const child = startChild(name, process.execPath, args, path.join(logDir, `${name}.log`), cleanEnvironment());
  return started(name, child, port, '/healthz', store.engine === 'postgres' ? 'postgres' : undefined);
}

/** Far more than a run writes into one account (D: about 100,000 a run here). */
const BENCH_MAX_RECORDS = 100_000_000;

let limits = 0;

/**
 * The bare node:http server answering `answer` to every request, in a process of its own; `hold`:
 * answering none until it is stopped.
 */
export async function startLimitServer(answer: Answer, scratchDir: string, hold = false): Promise<Server> {
  limits += 1;
  const file = path.join(scratchDir, `limit-answer-${limits}.json`);
  await writeFile(
    file,
    JSON.stringify({ status: answer.status, headers: answer.headers, bodyBase64: answer.body.toString('base64') }),
  );
  const port = await freePort();
  const name = `limit-${limits}`;
  const child = startChild(
    name,
    process.execPath,
    [LIMIT_SERVER, String(port), file, ...(hold ? ['hold'] : [])],
    path.join(scratchDir, `${name}.log`),
  );
  return started(name, child, port, '/');
}
