import { generate } from './generate.js';
import type { StoreShape } from './manifest.js';
import type { MeasureContext } from './measure.js';
import { analyze, createBenchDatabase, type BenchDatabase } from './postgres.js';
import { progress } from './progress.js';
import type { EngineResults, ServiceScenario } from './results.js';
import { startTaskService } from './servers.js';
import { runServiceScenarios } from './service-run.js';
import { openStore } from '../../src/store/open.js';

/**
 * Smaller than the SQLite store: it is made in every run, through the Store interface, and the big
 * account's puts run one after another (about 1,500 a second here).
 */
export const POSTGRES_SHAPE: StoreShape = { accounts: 100, tasksPerAccount: 1000, bigAccountTasks: 100_000 };

/** G: A, C and E on PostgreSQL, in a fresh database that is dropped afterwards whatever happens. */
export async function runPostgresPart(
  context: MeasureContext,
  workDir: string,
  scenarios: readonly ServiceScenario[],
  onDatabase: (database: BenchDatabase | undefined) => void,
): Promise<EngineResults> {
  const database = await createBenchDatabase();
  onDatabase(database);
  try {
    progress(`generating the PostgreSQL store in ${database.name}`);
    const store = await openStore({ engine: 'postgres', url: database.url, dataDir: workDir, pooled: false });
    let manifest;
    try {
      await store.migrate();
      manifest = await generate(store, POSTGRES_SHAPE, { concurrency: 6, label: 'PostgreSQL' });
    } finally {
      await store.close();
    }
    await analyze(database.url);
    progress(`PostgreSQL store generated in ${manifest.generateSeconds.toFixed(1)} s`);
    const server = await startTaskService(
      'task-service-postgres',
      { engine: 'postgres', url: database.url, dataDir: workDir },
      workDir,
    );
    try {
      const results = await runServiceScenarios(context, server, manifest, scenarios, 'PostgreSQL');
      return { engine: 'postgres', shape: POSTGRES_SHAPE, manifest, generatedThisRun: true, scenarios: results };
    } finally {
      await server.stop();
    }
  } finally {
    await database.drop();
    onDatabase(undefined);
    progress(`dropped ${database.name}`);
  }
}
