import { accountIndexOf } from './generate.js';
import { measure, type MeasureContext } from './measure.js';
import { progress } from './progress.js';
import { prepareRadicale, startRadicale } from './radicale.js';
import type { RadicaleResults } from './results.js';

/** The peer's two scenarios: create (against our C) and sync of 10 changes (against our E). */
export async function runRadicalePart(
  context: MeasureContext,
  version: string,
  workDir: string,
): Promise<RadicaleResults> {
  progress(`Radicale ${version}: starting and filling a calendar of 1,000 VTODOs`);
  const server = await startRadicale(workDir, context.settings.connections);
  try {
    // The calendar holds the same generated tasks as the account our E syncs.
    const scenarios = await prepareRadicale(server, accountIndexOf('sync'), 1000);
    progress('Radicale: create a task (PUT of a new VTODO)');
    const create = await measure(context, server, scenarios.create, true);
    progress('Radicale: sync 10 changes (REPORT sync-collection, then calendar-multiget)');
    const sync = await measure(context, server, scenarios.sync, false);
    return { version, collectionSize: scenarios.syncCollectionSize, create, sync };
  } finally {
    await server.stop();
  }
}
