import { generate, tokensOfEveryAccount } from './generate.js';
import type { Manifest, StoreShape } from './manifest.js';
import { versusLimit, type MeasureContext, type VersusLimit } from './measure.js';
import { measurePgbench, type PgbenchResults } from './pgbench.js';
import { accountIdRange, analyze, createBenchDatabase, type BenchDatabase } from './postgres.js';
import { progress } from './progress.js';
import {
  SCALED_SCENARIOS,
  SCALED_TITLES,
  type EngineResults,
  type ScaledResults,
  type ScaledScenario,
  type ServiceScenario,
} from './results.js';
import { startTaskService, type Server, type ServiceStore } from './servers.js';
import { runServiceScenarios } from './service-run.js';
import { createScenario, listPageScenario, syncScenario } from './task-scenarios.js';
import { openStore } from '../../src/store/open.js';

/**
 * Smaller than the SQLite store: it is made in every run, through the Store interface, and the big
 * account's puts run one after another (about 1,500 a second here). The bench's serve takes more
 * records per account than the default cap (servers.ts), so G2's creates land in it too.
 */
export const POSTGRES_SHAPE: StoreShape = { accounts: 100, tasksPerAccount: 1000, bigAccountTasks: 100_000 };

/** `serve` processes of G2 on the one database (serve has no cluster mode: one process each). */
export const SCALED_PROCESSES = 2;

/** What to measure on PostgreSQL; `pgbench` is its version, undefined when it is not installed. */
export interface PostgresPlan {
  /** G: on one serve process, each scenario on one account. */
  readonly scenarios: readonly ServiceScenario[];
  /** G2: A, E and C with SCALED_PROCESSES serve processes over every account, then pgbench. */
  readonly scaled: boolean;
  readonly pgbench: string | undefined;
}

export interface PostgresPart {
  readonly engine: EngineResults;
  readonly scaled?: ScaledResults;
}

/**
 * G2: A, E and C with SCALED_PROCESSES serve processes, each request to the next of every
 * account, then pgbench on C's transaction. In this order: A reads accounts nothing writes to,
 * E's changes must be the last before it, and C writes to every account.
 */
async function runScaled(
  context: MeasureContext,
  store: ServiceStore,
  tokens: readonly string[],
  plan: PostgresPlan,
  url: string,
): Promise<ScaledResults> {
  const servers: Server[] = [];
  const scenarios: Partial<Record<ScaledScenario, VersusLimit>> = {};
  try {
    for (let index = 1; index <= SCALED_PROCESSES; index += 1) {
      servers.push(await startTaskService(`task-service-postgres-${index}`, store, context.scratchDir));
    }
    const [first] = servers;
    if (first === undefined) throw new Error('no serve process started');
    const prepare = {
      A: () => listPageScenario(first.port, tokens, false),
      'E-small': () => syncScenario(first.port, tokens),
      C: () => Promise.resolve(createScenario(tokens)),
    };
    for (const key of SCALED_SCENARIOS) {
      progress(`${SCALED_TITLES[key]}, ${tokens.length} accounts in turn, ${SCALED_PROCESSES} processes`);
      scenarios[key] = await versusLimit(context, servers, await prepare[key]());
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  let pgbench: PgbenchResults | undefined;
  if (plan.pgbench === undefined)
    progress('pgbench is not installed (apt-get install postgresql-client): no database limit');
  else {
    progress('pgbench: the transaction of G2/C (tools/bench/pgbench-create.sql), the same accounts');
    pgbench = await measurePgbench(url, await accountIdRange(url), context.settings, context.scratchDir, plan.pgbench);
  }
  return {
    processes: SCALED_PROCESSES,
    accounts: tokens.length,
    scenarios,
    ...(pgbench === undefined ? {} : { pgbench }),
  };
}

/** The generated store, and a token of every account for the loads spread over them. */
async function fill(database: BenchDatabase, workDir: string): Promise<{ manifest: Manifest; tokens: string[] }> {
  progress(`generating the PostgreSQL store in ${database.name}`);
  const store = await openStore({ engine: 'postgres', url: database.url, dataDir: workDir, pooled: false });
  try {
    await store.migrate();
    const manifest = await generate(store, POSTGRES_SHAPE, { concurrency: 6, label: 'PostgreSQL' });
    return { manifest, tokens: await tokensOfEveryAccount(store, POSTGRES_SHAPE) };
  } finally {
    await store.close();
  }
}

/**
 * G: the chosen scenarios on one serve process, then G2 when asked, in a fresh database that is
 * dropped afterwards whatever happens.
 */
export async function runPostgresPart(
  context: MeasureContext,
  workDir: string,
  plan: PostgresPlan,
  onDatabase: (database: BenchDatabase | undefined) => void,
): Promise<PostgresPart> {
  const database = await createBenchDatabase();
  onDatabase(database);
  try {
    const { manifest, tokens } = await fill(database, workDir);
    await analyze(database.url);
    progress(`PostgreSQL store generated in ${manifest.generateSeconds.toFixed(1)} s`);
    const store: ServiceStore = { engine: 'postgres', url: database.url, dataDir: workDir };
    let results: Partial<Record<ServiceScenario, VersusLimit>> = {};
    if (plan.scenarios.length > 0) {
      const server = await startTaskService('task-service-postgres', store, workDir);
      try {
        results = await runServiceScenarios(context, server, manifest, plan.scenarios, 'PostgreSQL');
      } finally {
        await server.stop();
      }
    }
    const engine: EngineResults = {
      engine: 'postgres',
      shape: POSTGRES_SHAPE,
      manifest,
      generatedThisRun: true,
      scenarios: results,
    };
    if (!plan.scaled) return { engine };
    return { engine, scaled: await runScaled(context, store, tokens, plan, database.url) };
  } finally {
    await database.drop();
    onDatabase(undefined);
    progress(`dropped ${database.name}`);
  }
}
