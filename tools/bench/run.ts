/**
 * `npm run bench`: issue #5's measuring instrument. Drives the real `task-service serve --http`
 * on a generated store with wrk from another process, next to a bare node:http server answering
 * the same bytes (the limit) and Radicale (the CalDAV peer); prints one table and the goals, and
 * writes docs/benchmarks.md on a full run. Progress goes to stderr, the table to stdout.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { evaluateGoals } from './goals.js';
import type { LoadTool } from './load.js';
import { describeMachine, sourceRevision, sqliteVersion } from './machine.js';
import type { LoadSettings, MeasureContext } from './measure.js';
import { pgbenchVersion } from './pgbench.js';
import { runPostgresPart, type PostgresPart } from './postgres-part.js';
import { postgresVersion, type BenchDatabase } from './postgres.js';
import { stopAllChildren } from './processes.js';
import { elapsedSeconds, progress } from './progress.js';
import { radicaleVersion } from './radicale.js';
import { runRadicalePart } from './radicale-part.js';
import { runCalDavPart, type CalDavResults } from './caldav-part.js';
import { reportMarkdown } from './report.js';
import type { RadicaleResults, RunResults, ServiceScenario } from './results.js';
import { runSqlitePart, type SqlitePart } from './sqlite-part.js';
import { runTreePostgres, runTreeSqlite, treeSection, type TreeEngineResults } from './tree-part.js';
import { goalsTable, resultsTable } from './table.js';
import { runWebhooksPart, webhooksMarkdown, type WebhooksResults } from './webhooks-part.js';
import { findWrk } from './wrk.js';

// Compiled to .bench/build/tools/bench/ (tools/bench/tsconfig.json): the repository is four folders up.
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const BENCH_DIR = path.join(REPO, '.bench');
const REPORT_FILE = path.join(REPO, 'docs', 'benchmarks.md');
/** Why each goal is met or missed: written by people, carried into the report as it is. */
const ANALYSIS_FILE = path.join(REPO, 'tools', 'bench', 'analysis.md');
const PARTS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'G2', 'R', 'V', 'T', 'W'] as const;
type Part = (typeof PARTS)[number];

interface Options {
  readonly parts: ReadonlySet<Part>;
  readonly full: boolean;
  readonly settings: LoadSettings;
  readonly regenerate: boolean;
}

function positiveInteger(text: string | undefined, fallback: number, what: string): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${what} must be a whole number of at least 1`);
  return value;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      seconds: { type: 'string' },
      connections: { type: 'string' },
      regenerate: { type: 'boolean' },
    },
  });
  const parts = new Set<Part>();
  for (const name of (values.only ?? PARTS.join(',')).split(',')) {
    const part = PARTS.find((candidate) => candidate === name.trim().toUpperCase());
    if (part === undefined) throw new Error(`--only takes letters of ${PARTS.join(' ')}, not "${name}"`);
    parts.add(part);
  }
  const seconds = positiveInteger(values.seconds, 5, '--seconds');
  return {
    parts,
    full: parts.size === PARTS.length && seconds >= 5,
    settings: {
      seconds,
      warmupSeconds: 1,
      connections: positiveInteger(values.connections, 32, '--connections'),
      threads: 2,
      timeoutSeconds: 10,
    },
    regenerate: values.regenerate === true,
  };
}

async function loadTool(): Promise<LoadTool> {
  const wrk = await findWrk();
  if (wrk !== undefined) return wrk;
  throw new Error('wrk is not installed: apt-get install wrk');
}

/** What to stop or drop when the run ends early. */
let liveDatabase: BenchDatabase | undefined;
let workDir: string | undefined;

async function cleanUp(): Promise<void> {
  await stopAllChildren();
  const database = liveDatabase;
  liveDatabase = undefined;
  if (database !== undefined) await database.drop().catch(() => undefined);
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
}

async function main(): Promise<void> {
  const options = readOptions();
  const { parts } = options;
  const startedAt = new Date();
  workDir = path.join(BENCH_DIR, `run-${process.pid}`);
  await mkdir(workDir, { recursive: true });

  const tool = await loadTool();
  const context: MeasureContext = { tool, settings: options.settings, scratchDir: workDir };
  const onPostgres = parts.has('G') || parts.has('G2') || parts.has('T');
  const [machine, revision, postgres, pgbench, radicale] = await Promise.all([
    describeMachine(),
    sourceRevision(),
    onPostgres ? postgresVersion() : Promise.resolve(undefined),
    parts.has('G2') ? pgbenchVersion() : Promise.resolve(undefined),
    parts.has('R') || parts.has('V') ? radicaleVersion() : Promise.resolve(undefined),
  ]);
  progress(`${machine.cpuModel}, ${machine.cores} cores; load by ${tool.name} ${tool.version}`);
  const skipped: string[] = [];

  const sqliteScenarios: ServiceScenario[] = [];
  for (const key of ['A', 'B', 'C', 'D'] as const) if (parts.has(key)) sqliteScenarios.push(key);
  if (parts.has('E')) sqliteScenarios.push('E-small', 'E-big');
  let sqlite: SqlitePart = {};
  if (sqliteScenarios.length > 0 || parts.has('F')) {
    sqlite = await runSqlitePart(context, BENCH_DIR, workDir, sqliteScenarios, parts.has('F'), options.regenerate);
  }

  let peer: RadicaleResults | undefined;
  if (parts.has('R')) {
    if (radicale === undefined) {
      skipped.push('The peer rows: Radicale is not installed (apt-get install radicale).');
      progress('Radicale is not installed (apt-get install radicale): skipping the peer rows');
    } else {
      peer = await runRadicalePart(context, radicale, workDir);
    }
  }

  let caldav: CalDavResults | undefined;
  if (parts.has('V')) {
    if (radicale === undefined)
      skipped.push("V's Radicale rows: Radicale is not installed (apt-get install radicale).");
    caldav = await runCalDavPart(context, workDir, radicale);
  }

  let postgresPart: PostgresPart | undefined;
  if (parts.has('G') || parts.has('G2')) {
    if (postgres === undefined) {
      skipped.push('G and G2 (PostgreSQL): no PostgreSQL answered at BENCH_DATABASE_URL.');
      progress('no PostgreSQL answers: skipping G and G2');
    } else {
      if (parts.has('G2') && pgbench === undefined) {
        skipped.push("G2's database limit: pgbench is not installed (apt-get install postgresql-client).");
      }
      const plan = {
        scenarios: parts.has('G') ? (['A', 'C', 'E-small', 'E-big'] as const) : [],
        scaled: parts.has('G2'),
        pgbench,
      };
      postgresPart = await runPostgresPart(context, workDir, plan, (database) => {
        liveDatabase = database;
      });
    }
  }

  // T (issue #22): stores of its own on both engines, a section of its own in the report.
  const tree: TreeEngineResults[] = [];
  if (parts.has('T')) {
    tree.push(await runTreeSqlite(workDir));
    if (postgres === undefined) skipped.push("T's PostgreSQL rows: no PostgreSQL answered at BENCH_DATABASE_URL.");
    else tree.push(await runTreePostgres(workDir, (database) => (liveDatabase = database)));
  }

  let webhooks: WebhooksResults | undefined;
  if (parts.has('W')) webhooks = await runWebhooksPart(context, workDir);
  const webhooksText = webhooks === undefined ? '' : webhooksMarkdown(webhooks);

  const results: RunResults = {
    ...(sqlite.engine === undefined ? {} : { sqlite: sqlite.engine }),
    ...(sqlite.fullList === undefined ? {} : { fullList: sqlite.fullList }),
    ...(postgresPart === undefined ? {} : { postgres: postgresPart.engine }),
    ...(postgresPart?.scaled === undefined ? {} : { postgresScaled: postgresPart.scaled }),
    ...(peer === undefined ? {} : { radicale: peer }),
    ...(caldav === undefined ? {} : { caldav }),
    skipped,
  };
  const goals = evaluateGoals(results);
  const totalSeconds = elapsedSeconds();
  const treeText = tree.length === 0 ? '' : `${treeSection(tree)}\n\n`;
  process.stdout.write(`${resultsTable(results)}\n\n${goalsTable(goals)}\n\n${treeText}${webhooksText}`);
  process.stdout.write(`Whole run: ${(totalSeconds / 60).toFixed(1)} min\n`);

  if (options.full) {
    const info = {
      date: startedAt,
      machine,
      versions: {
        node: process.version,
        sqlite: sqliteVersion(),
        postgres,
        loadTool: `${tool.name} ${tool.version}`,
        radicale,
        revision,
      },
      settings: options.settings,
      totalSeconds,
    };
    const analysis = await readFile(ANALYSIS_FILE, 'utf8');
    await writeFile(REPORT_FILE, `${reportMarkdown(info, results, goals, analysis)}\n${treeText}${webhooksText}`);
    progress(`wrote ${path.relative(REPO, REPORT_FILE)}`);
  } else {
    progress('a partial run (--only, or --seconds under 5): docs/benchmarks.md left as it was');
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    progress(`${signal}: stopping the servers`);
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  await main();
  await cleanUp();
} catch (error) {
  progress(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  await cleanUp();
  process.exitCode = 1;
}
