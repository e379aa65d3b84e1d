import { count, gibibytes } from './format.js';
import type { GoalResult } from './goals.js';
import type { Machine } from './machine.js';
import type { StoreShape } from './manifest.js';
import { DISTURBED_CORES, QUIET_WAIT_SECONDS, type LoadSettings } from './measure.js';
import { PGBENCH_QUERY_MODE } from './pgbench.js';
import type { RunResults } from './results.js';
import { goalsTable, resultsTable } from './table.js';

export interface Versions {
  readonly node: string;
  readonly sqlite: string;
  readonly postgres: string | undefined;
  readonly loadTool: string;
  readonly radicale: string | undefined;
  readonly revision: string;
}

export interface RunInfo {
  readonly date: Date;
  readonly machine: Machine;
  readonly versions: Versions;
  readonly settings: LoadSettings;
  readonly totalSeconds: number;
}

function shapeText(shape: StoreShape): string {
  const small = shape.accounts - 1;
  const tasks = shape.bigAccountTasks + small * shape.tasksPerAccount;
  return (
    `${shape.accounts.toLocaleString('en')} accounts: ${small.toLocaleString('en')} with ` +
    `${shape.tasksPerAccount.toLocaleString('en')} tasks each and one big account with ` +
    `${shape.bigAccountTasks.toLocaleString('en')}, ${tasks.toLocaleString('en')} tasks in all, ` +
    'plus 5 projects and 3 contexts per account'
  );
}

function setupNotes(info: RunInfo, results: RunResults): string[] {
  const { settings, versions } = info;
  const notes = [
    `Load: ${versions.loadTool}, ${settings.threads} threads, ${settings.connections} connections, ` +
      `${settings.warmupSeconds} s of warm-up (not counted), then ${settings.seconds} s measured; the same for every ` +
      'server. Every server runs in a process of its own on loopback, the load tool in another, all on this one machine. ' +
      "Requests/s counts completed requests over the measured seconds; p50 and p99 are the load tool's latency percentiles.",
    'Peak RSS: the high-water mark (VmHWM) of the server process over the measured stretch (reset through ' +
      '/proc/<pid>/clear_refs before it; VmRSS is sampled meanwhile as a fallback). MB = 10^6 bytes.',
    "Disturbance: during each measured stretch the bench also takes the machine's busy CPU time (/proc/stat) less " +
      "that of the servers (with PostgreSQL's backends for G and G2), the load tool and itself; a row where other processes " +
      `kept more than ${DISTURBED_CORES} cores busy on average is marked (†n), n being those cores. Before each ` +
      `measurement the bench waits (up to ${QUIET_WAIT_SECONDS.each} s, ${QUIET_WAIT_SECONDS.run / 60} min in all) ` +
      'while other work keeps the machine busy.',
    'task-service: the real `task-service serve --http` with its defaults (SQLite synchronous=FULL, log level info ' +
      'written to a file).',
    'limit: a bare `node:http` server (bench/limit-server.ts) that reads each request body and answers the bytes the ' +
      'task service answered to one real request of the scenario, captured just before (status, headers, body; gzip-' +
      'compressed for B), from memory. Ratio = task-service requests/s ÷ limit requests/s, measured in the same run.',
  ];
  if (results.sqlite !== undefined) {
    const { manifest } = results.sqlite;
    notes.push(
      `SQLite store: ${shapeText(results.sqlite.shape)}. The issue asks both for "1,000,000 tasks" and for an ` +
        'account of ~1,000,000; the big account keeps its million, so the store holds about two. Generated through ' +
        `\`Store.write\` (5,000 puts per transaction) in ${manifest.generateSeconds.toFixed(0)} s ` +
        `(${results.sqlite.generatedThisRun ? 'in this run' : `on ${manifest.generatedAt}, reused from .bench/`}); ` +
        'each run serves a fresh copy, so the writes of one run do not change the next.',
    );
  }
  if (results.postgres !== undefined) {
    notes.push(
      `PostgreSQL store (G, G2): smaller, ${shapeText(results.postgres.shape)}: it is generated in every run into a fresh ` +
        `database task_service_bench_<random> (dropped after) through the same \`Store.write\`, which took ` +
        `${results.postgres.manifest.generateSeconds.toFixed(0)} s here; writes of one account cannot run in ` +
        'parallel, so a 1,000,000-task account would take over ten minutes alone. ANALYZE runs after generation.',
    );
  }
  const scaled = results.postgresScaled;
  if (scaled !== undefined) {
    notes.push(
      `G2: ${scaled.processes} \`task-service serve --http\` processes on the one PostgreSQL database (serve has no ` +
        `cluster mode), each on a port of its own, driven at once: one ${versions.loadTool} per process with an even ` +
        'share of the connections and threads, running together. Requests/s is the sum of the processes; p50 and ' +
        "p99 are the worse of the processes' (the load tool reports percentiles, not distributions to merge); peak " +
        "RSS is the largest process's. Each request goes to the next of the " +
        `${scaled.accounts} accounts in turn (every generated account, the big one included), each process starting ` +
        'at another. The limit is as many node:http processes, driven the same way. A runs first (nothing writes ' +
        "to the accounts), then E (each account's 10 changes made just before), then C.",
    );
    const { pgbench } = scaled;
    if (pgbench !== undefined) {
      notes.push(
        `pgbench ${pgbench.version}: the transaction the service sends for one create of C ` +
          '(tools/bench/pgbench-create.sql: BEGIN, the account row locked FOR NO KEY UPDATE, the project by name, ' +
          'the upsert, the usage read, the new head, COMMIT), each into a random one of the same ' +
          `${pgbench.accounts} accounts, against the same database just after G2/C, in mode ${PGBENCH_QUERY_MODE} ` +
          `(as the service's driver sends it); ${settings.warmupSeconds} s of warm-up, then ${settings.seconds} s ` +
          `measured at each client count, 2 threads; tried at ${pgbench.runs.map((run) => `${run.clients} clients (${count(run.load.requestsPerSecond)}/s)`).join(', ')}: ` +
          'the best is the row. p50 and p99 from its per-transaction log (-l).',
      );
    }
  }
  notes.push(
    'A, B: `GET /v1/tasks?limit=50&cursor=…` on a 1,000-task account, from the cursor of position 500 (has_more true). ' +
      'C: `POST /v1/tasks` of one task without id (the server makes it) with a project by name, a start date, tags ' +
      'and notes; D: 100 such tasks in one array. E: a client takes the cursor of "everything up to now", another ' +
      "changes the account's 10 oldest tasks, then `GET /v1/tasks?cursor=…` answers exactly those 10. F: a fresh " +
      'server process, one client reading `GET /v1/tasks` of the big account (no limit) as fast as it can.',
  );
  if (results.radicale !== undefined) {
    notes.push(
      `Radicale ${results.radicale.version} (Debian), started by the bench on loopback with a configuration of its own: ` +
        'no authentication, rights owner_only, storage in a temporary folder, max_connections raised from 8 to the ' +
        "load's connection count, everything else at its defaults (it fsyncs every change). Create: PUT with " +
        'If-None-Match: * of a VTODO with the fields of C to a new href in a calendar made by MKCALENDAR. Sync: a ' +
        `calendar of ${results.radicale.collectionSize.toLocaleString('en')} VTODOs (the generated tasks of a ` +
        '1,000-task account, one PUT each), a sync-token taken, 10 VTODOs changed by PUT; then ' +
        'REPORT sync-collection with that token (answering the 10 hrefs) and calendar-multiget of the 10, in turn. ' +
        'One sync is those two requests, so its row shows syncs/s = requests/s ÷ 2, with per-request latencies. ' +
        'Radicale answers HTTP/1.0: a new connection per request.',
    );
  }
  return notes;
}

/** The heading that follows the analysis in the report (test/docs/benchmarks-analysis.test.ts finds it so). */
export const MEASURED_HEADING = '## How it was measured';

/** docs/benchmarks.md: how, where and what was measured, the table, and the goals. */
export function reportMarkdown(
  info: RunInfo,
  results: RunResults,
  goals: readonly GoalResult[],
  analysis: string,
): string {
  const { machine, versions } = info;
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench` (tools/bench/run.ts); run it again rather than editing this file. ' +
      'The numbers are from one run on one machine: compare ratios measured in the same run, not numbers across machines.',
    '',
    `- Date: ${info.date
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, ' UTC')}; whole run ${(info.totalSeconds / 60).toFixed(1)} min`,
    `- Machine: ${machine.cpuModel}, ${machine.cores} cores, ${gibibytes(machine.memoryBytes)} memory, ${machine.os}`,
    `- Versions: task-service ${versions.revision}; Node ${versions.node}; SQLite ${versions.sqlite}; ` +
      `PostgreSQL ${versions.postgres ?? 'not available'}; ${versions.loadTool}; Radicale ${versions.radicale ?? 'not installed'}`,
    '',
    '## Results',
    '',
    resultsTable(results),
    '',
    '## Goals',
    '',
    goalsTable(goals),
    '',
    analysis.trim(),
    '',
    MEASURED_HEADING,
    '',
    ...setupNotes(info, results).map((note) => `- ${note}`),
  ];
  if (results.skipped.length > 0)
    lines.push('', '## Not measured in this run', '', ...results.skipped.map((reason) => `- ${reason}`));
  lines.push(
    '',
    '## Running it',
    '',
    '```sh',
    'apt-get install wrk radicale postgresql-client   # the load tool, the peer and pgbench',
    'npm ci && npm run build',
    'npm run bench                  # everything; writes this file',
    'npm run bench -- --only A,E    # some scenarios (A B C D E F G G2 R V T W); prints the table, leaves this file alone',
    'npm run bench -- --only G,G2   # the PostgreSQL part alone (about 4 minutes)',
    'npm run bench -- --only W      # webhooks, waits and reminders (issue #24) alone (about 3 minutes)',
    'bash tools/bench/count-instructions.sh 1000 none   # instructions a create, counted by callgrind (needs valgrind)',
    '```',
    '',
    'Options: `--seconds N` (measured seconds per load, default 5), `--connections N` (default 32), ' +
      '`--regenerate` (make the SQLite store in .bench/ again). PostgreSQL is found at `BENCH_DATABASE_URL` ' +
      '(default postgres://postgres@127.0.0.1:5432/postgres). With `BENCH_CPU_PROFILE_DIR` set, every ' +
      '`serve` process writes a V8 CPU profile of each of its threads there when it stops (`node --cpu-prof`).',
    '',
  );
  return lines.join('\n');
}
