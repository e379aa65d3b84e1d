import { count, megabytes, ratio } from './format.js';
import { DISTURBED_CORES, type Measured, type VersusLimit } from './measure.js';
import type { RunResults, ServiceScenario } from './results.js';
import type { StreamedList } from './streaming.js';

export interface GoalResult {
  readonly goal: string;
  readonly target: string;
  readonly measured: string;
  /** Undefined when the run did not measure it. */
  readonly met: boolean | undefined;
}

/** Our throughput as a share of the limit server's in the same run. */
export function limitRatio(result: VersusLimit): number {
  return result.ours.load.requestsPerSecond / result.limit.load.requestsPerSecond;
}

/** Radicale's syncs per second: each sync is two requests (REPORT sync-collection, calendar-multiget). */
export function radicaleSyncsPerSecond(results: RunResults): number | undefined {
  const sync = results.radicale?.sync;
  return sync === undefined ? undefined : sync.load.requestsPerSecond / 2;
}

const NOT_MEASURED = 'not measured in this run';

/** ' (disturbed)' when other work on the machine ran during any of these measurements. */
function disturbed(...measured: readonly (Measured | StreamedList | undefined)[]): string {
  return measured.some((one) => one !== undefined && one.otherCores > DISTURBED_CORES) ? ' (disturbed †)' : '';
}

function versusLimitGoal(results: RunResults, key: ServiceScenario, goal: string, minimum: number): GoalResult {
  const result = results.sqlite?.scenarios[key];
  const target = `≥ ${minimum} × limit`;
  if (result === undefined) return { goal, target, measured: NOT_MEASURED, met: undefined };
  const value = limitRatio(result);
  return {
    goal,
    target,
    measured: `${ratio(value)} × limit${disturbed(result.ours, result.limit)}`,
    met: value >= minimum,
  };
}

function versusRadicaleGoal(
  goal: string,
  ours: Measured | undefined,
  theirs: Measured | undefined,
  theirsPerSecond: number | undefined,
  minimum: number,
): GoalResult {
  const target = `≥ ${minimum} × Radicale`;
  if (ours === undefined || theirs === undefined || theirsPerSecond === undefined) {
    return { goal, target, measured: NOT_MEASURED, met: undefined };
  }
  const oursPerSecond = ours.load.requestsPerSecond;
  const value = oursPerSecond / theirsPerSecond;
  return {
    goal,
    target,
    measured: `${ratio(value)} × Radicale (${count(oursPerSecond)} vs ${count(theirsPerSecond)} per s)${disturbed(ours, theirs)}`,
    met: value >= minimum,
  };
}

/** The goals of issue #5, each met or missed by this run's numbers. */
export function evaluateGoals(results: RunResults): GoalResult[] {
  const goals = [
    versusLimitGoal(results, 'A', 'A. list 50 by cursor', 0.35),
    versusLimitGoal(results, 'B', 'B. the same, gzip', 0.15),
    versusLimitGoal(results, 'C', 'C. durable create', 0.2),
  ];

  const small = results.sqlite?.scenarios['E-small'];
  const big = results.sqlite?.scenarios['E-big'];
  const flat = { goal: 'E. sync cost flat in account size', target: 'big account within 1.2× of the 1,000-task one' };
  if (small === undefined || big === undefined) goals.push({ ...flat, measured: NOT_MEASURED, met: undefined });
  else {
    const slower = small.ours.load.requestsPerSecond / big.ours.load.requestsPerSecond;
    goals.push({
      ...flat,
      measured:
        `${slower.toFixed(2)}× (${count(big.ours.load.requestsPerSecond)} vs ${count(small.ours.load.requestsPerSecond)} req/s)` +
        disturbed(small.ours, big.ours),
      met: slower <= 1.2,
    });
  }

  const full = results.fullList;
  const memory = { goal: 'F. peak RSS listing the big account', target: '≤ 250 MB' };
  if (full === undefined) goals.push({ ...memory, measured: NOT_MEASURED, met: undefined });
  else
    goals.push({
      ...memory,
      measured: megabytes(full.peakRssBytes) + disturbed(full),
      met: full.peakRssBytes <= 250e6,
    });

  goals.push(
    versusRadicaleGoal(
      'C vs Radicale: create a task',
      results.sqlite?.scenarios.C?.ours,
      results.radicale?.create,
      results.radicale?.create?.load.requestsPerSecond,
      10,
    ),
    versusRadicaleGoal(
      'E vs Radicale: sync 10 changes (1,000-task collection)',
      small?.ours,
      results.radicale?.sync,
      radicaleSyncsPerSecond(results),
      10,
    ),
  );
  return goals;
}
