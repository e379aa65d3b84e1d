import { count, megabytes, ms, ratio } from './format.js';
import { DISTURBED_CORES, type Measured, type VersusLimit } from './measure.js';
import type { CalDavResults } from './caldav-part.js';
import type { PgbenchResults } from './pgbench.js';
import type { RunResults, ScaledResults } from './results.js';

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

/** Our throughput as a share of pgbench's best rate on the same transaction, in the same run. */
export function pgbenchRatio(result: VersusLimit, pgbench: PgbenchResults): number {
  return result.ours.load.requestsPerSecond / pgbench.best.load.requestsPerSecond;
}

/** Radicale's syncs per second: each sync is two requests (REPORT sync-collection, calendar-multiget). */
export function radicaleSyncsPerSecond(results: RunResults): number | undefined {
  const sync = results.radicale?.sync;
  return sync === undefined ? undefined : sync.load.requestsPerSecond / 2;
}

const NOT_MEASURED = 'not measured in this run';

/** ' (disturbed)' when other work on the machine ran during any of these measurements. */
function disturbed(...measured: readonly ({ readonly otherCores: number } | undefined)[]): string {
  return measured.some((one) => one !== undefined && one.otherCores > DISTURBED_CORES) ? ' (disturbed †)' : '';
}

function versusLimitGoal(result: VersusLimit | undefined, goal: string, minimum: number): GoalResult {
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

/** The goals of issues #5 and #15, each met or missed by this run's numbers. */
export function evaluateGoals(results: RunResults): GoalResult[] {
  const sqlite = results.sqlite?.scenarios;
  const goals = [
    versusLimitGoal(sqlite?.A, 'A. list 50 by cursor', 0.35),
    versusLimitGoal(sqlite?.B, 'B. the same, gzip', 0.15),
    versusLimitGoal(sqlite?.C, 'C. durable create', 0.2),
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
  goals.push(...scaleOutGoals(results));
  goals.push(...calDavGoals(results));
  return goals;
}

/**
 * V1: one client's sync-collection, ours against Radicale's, by the median time of one answer
 * (Radicale may answer none within wrk's window; the rows show both servers under load too).
 */
function syncVersusRadicale(caldav: CalDavResults | undefined): GoalResult {
  const goal = 'V1. CalDAV sync-collection, 10 changes of a 10,000-task collection';
  const target = '≥ 50 × Radicale';
  const theirs = caldav?.syncOneClientRadicaleMs;
  if (caldav === undefined || theirs === undefined) return { goal, target, measured: NOT_MEASURED, met: undefined };
  const value = theirs / caldav.syncOneClientMs;
  return {
    goal,
    target,
    measured: `${ratio(value)} × Radicale (one client: ${caldav.syncOneClientMs.toFixed(1)} vs ${theirs.toFixed(0)} ms an answer)${disturbed(caldav.syncOurs, caldav.syncRadicale)}`,
    met: value >= 50,
  };
}

/** The goals of issue #23 (CalDAV). */
function calDavGoals(results: RunResults): GoalResult[] {
  const caldav = results.caldav;
  const first = caldav?.firstSync;
  const query = caldav?.query;
  const growth = (run: { rssBeforeBytes: number; peakRssBytes: number }): number =>
    run.peakRssBytes - run.rssBeforeBytes;
  return [
    syncVersusRadicale(caldav),
    first === undefined
      ? { goal: 'V2. CalDAV first sync of 10,000 tasks', target: '< 5 s', measured: NOT_MEASURED, met: undefined }
      : {
          goal: 'V2. CalDAV first sync of 10,000 tasks',
          target: '< 5 s',
          measured: `${first.seconds.toFixed(2)} s${disturbed(first)}`,
          met: first.seconds < 5,
        },
    first === undefined
      ? { goal: 'V2. its server RSS growth', target: '< 100 MB', measured: NOT_MEASURED, met: undefined }
      : {
          goal: 'V2. its server RSS growth',
          target: '< 100 MB',
          measured: megabytes(growth(first)),
          met: growth(first) < 100e6,
        },
    query === undefined
      ? {
          goal: 'V3. calendar-query over 100,000 tasks streams',
          target: 'RSS growth < 100 MB',
          measured: NOT_MEASURED,
          met: undefined,
        }
      : {
          goal: 'V3. calendar-query over 100,000 tasks streams',
          target: 'RSS growth < 100 MB',
          measured: `${megabytes(growth(query))} growth, ${query.seconds.toFixed(1)} s${disturbed(query)}`,
          met: growth(query) < 100e6,
        },
  ];
}

/** The goals of issue #15 (scale-out). */
function scaleOutGoals(results: RunResults): GoalResult[] {
  const scaled = results.postgresScaled;
  const processes = scaled === undefined ? '' : `, ${scaled.accounts} accounts, ${scaled.processes} processes`;
  return [
    pgbenchGoal(scaled),
    versusLimitGoal(scaled?.scenarios.A, `G2/A. PostgreSQL cursor page of an unchanged account${processes}`, 0.25),
    versusLimitGoal(results.sqlite?.scenarios.C, 'C. SQLite durable create (#15)', 0.25),
    arrayLatencyGoal(results.sqlite?.scenarios.D),
  ];
}

function pgbenchGoal(scaled: ScaledResults | undefined): GoalResult {
  const minimum = 0.5;
  const goal = `G2/C. PostgreSQL durable create${scaled === undefined ? '' : `, ${scaled.accounts} accounts, ${scaled.processes} processes`}`;
  const target = `≥ ${minimum} × pgbench`;
  const result = scaled?.scenarios.C;
  const pgbench = scaled?.pgbench;
  if (result === undefined || pgbench === undefined) return { goal, target, measured: NOT_MEASURED, met: undefined };
  const value = pgbenchRatio(result, pgbench);
  return {
    goal,
    target,
    measured:
      `${ratio(value)} × pgbench (${count(result.ours.load.requestsPerSecond)} vs ` +
      `${count(pgbench.best.load.requestsPerSecond)} per s)${disturbed(result.ours, pgbench.best)}`,
    met: value >= minimum,
  };
}

/** D's latency: 100 tasks in one request answered within the budget, its p50 shown alongside. */
function arrayLatencyGoal(result: VersusLimit | undefined): GoalResult {
  const budgetMs = 250;
  const goal = 'D. array POST of 100, p99';
  const target = `≤ ${budgetMs} ms`;
  if (result === undefined) return { goal, target, measured: NOT_MEASURED, met: undefined };
  const { load } = result.ours;
  return {
    goal,
    target,
    measured: `p99 ${ms(load.p99Ms)} ms (p50 ${ms(load.p50Ms)} ms)${disturbed(result.ours)}`,
    met: load.p99Ms <= budgetMs,
  };
}
