import type { StoreShape } from './manifest.js';
import { awaitQuiet, type MeasureContext } from './measure.js';
import { progress } from './progress.js';
import type { EngineResults, ServiceScenario } from './results.js';
import { startTaskService } from './servers.js';
import { runServiceScenarios } from './service-run.js';
import { prepareSqliteStore } from './sqlite-store.js';
import { listEverything, type StreamedList } from './streaming.js';

/** The main store: 1,000 accounts, 999 of 1,000 tasks and the big one of 1,000,000. */
export const SQLITE_SHAPE: StoreShape = { accounts: 1000, tasksPerAccount: 1000, bigAccountTasks: 1_000_000 };

export interface SqlitePart {
  readonly engine?: EngineResults;
  readonly fullList?: StreamedList;
}

/**
 * A-E on the SQLite store against their limits on one server process, then F on a fresh one
 * (so its memory shows the listing, not what the earlier scenarios left behind).
 */
export async function runSqlitePart(
  context: MeasureContext,
  benchDir: string,
  workDir: string,
  scenarios: readonly ServiceScenario[],
  fullList: boolean,
  regenerate: boolean,
): Promise<SqlitePart> {
  const store = await prepareSqliteStore(benchDir, workDir, SQLITE_SHAPE, regenerate);
  const location = { engine: 'sqlite', dataDir: store.dataDir } as const;
  let engine: EngineResults | undefined;
  if (scenarios.length > 0) {
    const server = await startTaskService('task-service-sqlite', location, workDir);
    try {
      const results = await runServiceScenarios(context, server, store.manifest, scenarios, 'SQLite');
      engine = {
        engine: 'sqlite',
        shape: SQLITE_SHAPE,
        manifest: store.manifest,
        generatedThisRun: store.generated,
        scenarios: results,
      };
    } finally {
      await server.stop();
    }
  }
  let streamed: StreamedList | undefined;
  if (fullList) {
    progress('F. one client lists the big account with no limit (fresh server process)');
    const server = await startTaskService('task-service-sqlite-full-list', location, workDir);
    try {
      await awaitQuiet([server]);
      streamed = await listEverything(server, store.manifest.accounts.big.token);
      progress(
        `  ${streamed.entries.toLocaleString('en')} tasks, ${(streamed.bytes / 1e6).toFixed(0)} MB in ${streamed.seconds.toFixed(1)} s, peak RSS ${(streamed.peakRssBytes / 1e6).toFixed(0)} MB`,
      );
    } finally {
      await server.stop();
    }
  }
  return { ...(engine === undefined ? {} : { engine }), ...(streamed === undefined ? {} : { fullList: streamed }) };
}
