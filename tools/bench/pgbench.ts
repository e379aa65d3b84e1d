import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { fileURLToPath } from 'node:url';
import { COMMIT_FUNCTION } from '../../src/store/postgres/commit-function.js';
import { OtherLoad } from './cpu.js';
import type { LoadResult } from './load.js';
import { DISTURBED_CORES, waitForQuiet, type LoadSettings } from './measure.js';
import { runCommand } from './processes.js';
import { progress } from './progress.js';

/*
 * PostgreSQL's own limit for our durable create: pgbench running the transaction the service
 * sends for one create (pgbench-create.sql), against the bench database, with the same accounts.
 */

/** The script: the one place that says what a create sends to PostgreSQL. */
export const CREATE_SCRIPT = fileURLToPath(new URL('../../../../tools/bench/pgbench-create.sql', import.meta.url));

/** The script with this release's commit function named in it, written once per run. */
async function scriptFile(scratchDir: string): Promise<string> {
  const file = path.join(scratchDir, 'pgbench-create.sql');
  const template = await readFile(CREATE_SCRIPT, 'utf8');
  await writeFile(file, template.replaceAll('COMMIT_FUNCTION', COMMIT_FUNCTION));
  return file;
}

/**
 * How pgbench sends the statements: like the service's driver (pg), the extended protocol with
 * unnamed statements, parsed anew each time; `prepared` would parse each once per connection.
 */
export const PGBENCH_QUERY_MODE = 'extended';

/** Client counts tried in every run; the best rate is the limit (8 to 16 gave the best here, on 2 cores). */
export const PGBENCH_CLIENTS = [8, 16, 32] as const;

export interface PgbenchRun {
  readonly clients: number;
  readonly load: LoadResult;
  /** Cores other processes (not PostgreSQL, not pgbench) kept busy meanwhile. */
  readonly otherCores: number;
}

export interface PgbenchResults {
  readonly version: string;
  readonly accounts: number;
  /** Every client count tried, in order; `best` is the one with the highest rate. */
  readonly runs: readonly PgbenchRun[];
  readonly best: PgbenchRun;
}

/** The accounts pgbench picks from: ids first…last, every one of them. */
export interface AccountRange {
  readonly first: number;
  readonly last: number;
}

/** pgbench's version, or undefined when it is not installed. */
export async function pgbenchVersion(): Promise<string | undefined> {
  const probe = await runCommand('pgbench', ['--version']);
  if (probe.code !== 0) return undefined;
  return /\(PostgreSQL\)\s+(.+)$/m.exec(probe.stdout)?.[1]?.trim() ?? 'unknown';
}

/** pgbench's connection options for a postgres:// URL. */
function connectionArgs(url: string): { args: string[]; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const args = [
    '-h',
    parsed.hostname,
    '-p',
    parsed.port === '' ? '5432' : parsed.port,
    '-U',
    decodeURIComponent(parsed.username === '' ? 'postgres' : parsed.username),
    decodeURIComponent(parsed.pathname.slice(1)),
  ];
  const env = {
    ...process.env,
    ...(parsed.password === '' ? {} : { PGPASSWORD: decodeURIComponent(parsed.password) }),
  };
  return { args, env };
}

/** The value after `label` in pgbench's summary, e.g. "tps = 812.1" or "failed transactions: 0". */
function summaryNumber(output: string, pattern: RegExp, what: string): number {
  const found = pattern.exec(output)?.[1];
  if (found === undefined) throw new Error(`pgbench printed no ${what}:\n${output}`);
  return Number(found);
}

/** The latencies in ms of every transaction in pgbench's per-transaction logs (-l), sorted. */
async function loggedLatencies(dir: string, prefix: string): Promise<number[]> {
  const latencies: number[] = [];
  for (const name of await readdir(dir)) {
    if (!name.startsWith(`${prefix}.`)) continue;
    // Each line: client, transaction number, latency in µs (or "failed"/"skipped"), script, time.
    for (const line of (await readFile(path.join(dir, name), 'utf8')).split('\n')) {
      const micros = Number(line.split(' ')[2]);
      if (Number.isFinite(micros)) latencies.push(micros / 1000);
    }
  }
  return latencies.sort((a, b) => a - b);
}

function percentile(sorted: readonly number[], share: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
}

let runs = 0;

async function countTasks(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ count: string }>('SELECT count(*) FROM tasks');
    return Number(result.rows[0]?.count);
  } finally {
    await client.end();
  }
}

/** One pgbench run of the create script: `clients` connections on 2 threads for `seconds`. */
async function runPgbench(
  url: string,
  accounts: AccountRange,
  clients: number,
  seconds: number,
  scratchDir: string,
): Promise<LoadResult> {
  runs += 1;
  const prefix = `pgbench-${runs}`;
  const { args, env } = connectionArgs(url);
  const options = [
    '-n',
    '-M',
    PGBENCH_QUERY_MODE,
    '-f',
    await scriptFile(scratchDir),
    '-D',
    `first_account=${accounts.first}`,
    '-D',
    `last_account=${accounts.last}`,
    '-c',
    String(clients),
    '-j',
    String(Math.min(2, clients)),
    '-T',
    String(seconds),
    '-l',
    `--log-prefix=${path.join(scratchDir, prefix)}`,
  ];
  const before = await countTasks(url);
  const { code, stdout, stderr } = await runCommand('pgbench', [...options, ...args], env);
  // A commit that finds its account moved (another client wrote it since the token check) writes
  // nothing; the service prepares it again, pgbench goes on. Only creates that landed count.
  const committed = (await countTasks(url)) - before;
  if (code !== 0) throw new Error(`pgbench failed (exit ${String(code)}): ${stderr || stdout}`);
  const processed = summaryNumber(stdout, /transactions actually processed: (\d+)/, 'transaction count');
  const failed = summaryNumber(stdout, /failed transactions: (\d+)/, 'failure count');
  const perSecond = (summaryNumber(stdout, /^tps = ([\d.]+)/m, 'rate') * committed) / processed;
  const latencies = await loggedLatencies(scratchDir, prefix);
  if (latencies.length !== processed) {
    throw new Error(`pgbench logged ${latencies.length} transactions but reported ${processed}`);
  }
  return {
    requests: committed,
    seconds,
    requestsPerSecond: perSecond,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    socketErrors: 0,
    badStatus: failed,
  };
}

/**
 * pgbench at each of PGBENCH_CLIENTS after a warm-up, each while watching for other work on the
 * machine (PostgreSQL's backends and pgbench itself are the work measured).
 */
export async function measurePgbench(
  url: string,
  accounts: AccountRange,
  settings: LoadSettings,
  scratchDir: string,
  version: string,
): Promise<PgbenchResults> {
  const first = PGBENCH_CLIENTS[0];
  await runPgbench(url, accounts, first, settings.warmupSeconds, scratchDir);
  const measured: PgbenchRun[] = [];
  for (const clients of PGBENCH_CLIENTS) {
    await waitForQuiet([], 'postgres');
    // pgbench connects anew: its backends start after this and have ended before stop().
    const others = await OtherLoad.start([], 'postgres', 'own and reaped children');
    const load = await runPgbench(url, accounts, clients, settings.seconds, scratchDir);
    const otherCores = await others.stop();
    const disturbed =
      otherCores > DISTURBED_CORES ? `; warning: other processes kept ${otherCores.toFixed(2)} cores busy` : '';
    progress(
      `  pgbench, ${clients} clients: ${Math.round(load.requestsPerSecond).toLocaleString('en')} transactions/s, ` +
        `p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms` +
        (load.badStatus > 0 ? `; ${load.badStatus} failed` : '') +
        disturbed,
    );
    measured.push({ clients, load, otherCores });
  }
  const best = measured.reduce((a, b) => (b.load.requestsPerSecond > a.load.requestsPerSecond ? b : a));
  return { version, accounts: accounts.last - accounts.first + 1, runs: measured, best };
}
