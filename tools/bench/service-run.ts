import type { Manifest } from './manifest.js';
import { versusLimit, type MeasureContext, type Scenario, type VersusLimit } from './measure.js';
import { progress } from './progress.js';
import type { ServiceScenario } from './results.js';
import type { Server } from './servers.js';
import { arrayScenario, createScenario, listPageScenario, syncScenario } from './task-scenarios.js';

/** What each scenario is, for progress lines and the table. */
export const SCENARIO_TITLES: Readonly<Record<ServiceScenario, string>> = {
  A: 'A. list 50 tasks by cursor',
  B: 'B. list 50 tasks by cursor, gzip',
  C: 'C. durable create (synchronous=FULL)',
  D: 'D. array POST of 100 tasks',
  'E-small': 'E. sync returning 10 changes, 1,000-task account',
  'E-big': 'E. sync returning 10 changes, big account',
};

function prepare(key: ServiceScenario, server: Server, manifest: Manifest): Promise<Scenario> | Scenario {
  const { accounts } = manifest;
  switch (key) {
    case 'A':
      return listPageScenario(server.port, [accounts.list.token], false);
    case 'B':
      return listPageScenario(server.port, [accounts.list.token], true);
    case 'C':
      return createScenario([accounts.create.token]);
    case 'D':
      return arrayScenario(accounts.array.token);
    case 'E-small':
      return syncScenario(server.port, [accounts.sync.token]);
    case 'E-big':
      return syncScenario(server.port, [accounts.big.token]);
  }
}

/** Runs the chosen scenarios in order against one running task service, each against its limit. */
export async function runServiceScenarios(
  context: MeasureContext,
  server: Server,
  manifest: Manifest,
  keys: readonly ServiceScenario[],
  engineLabel: string,
): Promise<Partial<Record<ServiceScenario, VersusLimit>>> {
  const results: Partial<Record<ServiceScenario, VersusLimit>> = {};
  for (const key of keys) {
    progress(`${SCENARIO_TITLES[key]} (${engineLabel})`);
    const scenario = await prepare(key, server, manifest);
    results[key] = await versusLimit(context, [server], scenario);
  }
  return results;
}
