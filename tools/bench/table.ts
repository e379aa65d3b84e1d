import { count, megabytes, ms, ratio } from './format.js';
import { limitRatio, pgbenchRatio, radicaleSyncsPerSecond, type GoalResult } from './goals.js';
import { DISTURBED_CORES, type Measured } from './measure.js';
import type { PgbenchResults } from './pgbench.js';
import {
  SCALED_SCENARIOS,
  SCALED_TITLES,
  SERVICE_SCENARIOS,
  type EngineResults,
  type RunResults,
  type ScaledResults,
  type ServiceScenario,
} from './results.js';
import { SCENARIO_TITLES } from './service-run.js';
import { SYNC_TASKS, type CalDavResults } from './caldav-part.js';

interface Row {
  readonly scenario: string;
  readonly server: string;
  readonly requestsPerSecond: string;
  readonly p50: string;
  readonly p99: string;
  readonly peakRss: string;
  readonly ratio: string;
  /** Cores other processes kept busy while this row was measured. */
  readonly otherCores?: number;
}

const HEADER: Row = {
  scenario: 'Scenario',
  server: 'Server',
  requestsPerSecond: 'Requests/s',
  p50: 'p50 ms',
  p99: 'p99 ms',
  peakRss: 'Peak RSS',
  ratio: 'Ratio',
};

/** The mark of a disturbed measurement, with the cores other processes kept busy meanwhile. */
function disturbedMark(otherCores: number): string {
  return otherCores > DISTURBED_CORES ? ` (†${otherCores.toFixed(2)})` : '';
}

function measuredCells(
  measured: Measured,
  perSecond = measured.load.requestsPerSecond,
): Omit<Row, 'scenario' | 'server' | 'ratio'> {
  const { load } = measured;
  const failures = load.badStatus + load.socketErrors;
  return {
    requestsPerSecond:
      count(perSecond) + (failures > 0 ? ` (${count(failures)} failed)` : '') + disturbedMark(measured.otherCores),
    p50: ms(load.p50Ms),
    p99: ms(load.p99Ms),
    peakRss: megabytes(measured.peakRssBytes),
    otherCores: measured.otherCores,
  };
}

function size(tasks: number): string {
  return tasks.toLocaleString('en');
}

interface Peer {
  readonly server: string;
  readonly measured: Measured;
  /** Operations per second: requests, or syncs of two requests each. */
  readonly perSecond: number;
}

/** Radicale's row next to ours: its create against our C, its sync against our E on 1,000 tasks. */
function peerOf(key: ServiceScenario, results: RunResults): Peer | undefined {
  const radicale = results.radicale;
  if (radicale === undefined) return undefined;
  const name = `Radicale ${radicale.version}`;
  if (key === 'C' && radicale.create !== undefined) {
    return {
      server: `${name}: PUT of a new VTODO`,
      measured: radicale.create,
      perSecond: radicale.create.load.requestsPerSecond,
    };
  }
  const syncs = radicaleSyncsPerSecond(results);
  if (key === 'E-small' && radicale.sync !== undefined && syncs !== undefined) {
    return {
      server: `${name}: REPORT sync-collection + calendar-multiget of the 10, ${size(radicale.collectionSize)} VTODOs (syncs/s)`,
      measured: radicale.sync,
      perSecond: syncs,
    };
  }
  return undefined;
}

function engineRows(engine: EngineResults, results: RunResults): Row[] {
  const rows: Row[] = [];
  const name = engine.engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  for (const key of SERVICE_SCENARIOS) {
    const result = engine.scenarios[key];
    if (result === undefined) continue;
    let title =
      key === 'E-big' ? `${SCENARIO_TITLES[key]} (${size(engine.shape.bigAccountTasks)} tasks)` : SCENARIO_TITLES[key];
    // G repeats scenarios on PostgreSQL: G/A, G/C, G/E.
    if (engine.engine === 'postgres') title = `G/${title}`;
    let ratioText = `${ratio(limitRatio(result))} × limit`;
    const peer = engine.engine === 'sqlite' ? peerOf(key, results) : undefined;
    if (peer !== undefined) ratioText += ` · ${ratio(result.ours.load.requestsPerSecond / peer.perSecond)} × Radicale`;
    rows.push({ scenario: title, server: `task-service, ${name}`, ...measuredCells(result.ours), ratio: ratioText });
    rows.push({
      scenario: '',
      server: `limit: node:http, same ${size(result.answerBytes)} bytes`,
      ...measuredCells(result.limit),
      ratio: '1',
    });
    if (peer !== undefined) {
      rows.push({ scenario: '', server: peer.server, ...measuredCells(peer.measured, peer.perSecond), ratio: '' });
    }
  }
  return rows;
}

function fullListRow(results: RunResults): Row[] {
  const full = results.fullList;
  if (full === undefined) return [];
  const tasksPerSecond = full.entries / full.seconds;
  return [
    {
      scenario: `F. one client lists the big account, no limit (${size(full.entries)} tasks, ${megabytes(full.bytes)})`,
      server: 'task-service, SQLite',
      requestsPerSecond:
        `1 request in ${full.seconds.toFixed(1)} s (${count(tasksPerSecond)} tasks/s)` + disturbedMark(full.otherCores),
      p50: '',
      p99: '',
      peakRss: megabytes(full.peakRssBytes),
      ratio: '',
      otherCores: full.otherCores,
    },
  ];
}

/** pgbench on C's transaction, next to G2/C: PostgreSQL's own limit for our create. */
function pgbenchRow(pgbench: PgbenchResults): Row {
  const { best } = pgbench;
  const { load } = best;
  const failures = load.badStatus + load.socketErrors;
  return {
    scenario: '',
    server: `pgbench ${pgbench.version}: the same transaction (pgbench-create.sql), ${best.clients} clients`,
    requestsPerSecond:
      count(load.requestsPerSecond) +
      (failures > 0 ? ` (${count(failures)} failed)` : '') +
      disturbedMark(best.otherCores),
    p50: ms(load.p50Ms),
    p99: ms(load.p99Ms),
    peakRss: '',
    ratio: 'database limit',
    otherCores: best.otherCores,
  };
}

function scaledRows(scaled: ScaledResults): Row[] {
  const rows: Row[] = [];
  for (const key of SCALED_SCENARIOS) {
    const result = scaled.scenarios[key];
    if (result === undefined) continue;
    let ratioText = `${ratio(limitRatio(result))} × limit`;
    const pgbench = key === 'C' ? scaled.pgbench : undefined;
    if (pgbench !== undefined) ratioText += ` · ${ratio(pgbenchRatio(result, pgbench))} × pgbench`;
    rows.push({
      scenario: `${SCALED_TITLES[key]}, ${size(scaled.accounts)} accounts in turn`,
      server: `task-service, PostgreSQL, ${scaled.processes} processes`,
      ...measuredCells(result.ours),
      ratio: ratioText,
    });
    rows.push({
      scenario: '',
      server: `limit: node:http, ${scaled.processes} processes, same ${size(result.answerBytes)} bytes`,
      ...measuredCells(result.limit),
      ratio: '1',
    });
    if (pgbench !== undefined) rows.push(pgbenchRow(pgbench));
  }
  return rows;
}

/** Every measured row: SQLite scenarios with their limits and the peer, F, then PostgreSQL: G, G2. */
export function resultRows(results: RunResults): Row[] {
  return [
    ...(results.sqlite === undefined ? [] : engineRows(results.sqlite, results)),
    ...fullListRow(results),
    ...(results.postgres === undefined ? [] : engineRows(results.postgres, results)),
    ...(results.postgresScaled === undefined ? [] : scaledRows(results.postgresScaled)),
    ...(results.caldav === undefined ? [] : calDavRows(results.caldav)),
  ];
}

function oneClientRow(
  scenario: string,
  server: string,
  run: { seconds: number; requests?: number; rssBeforeBytes: number; peakRssBytes: number; otherCores: number },
  ratioText: string,
): Row {
  const requests = run.requests === undefined ? '1 request' : `${count(run.requests)} requests`;
  return {
    scenario,
    server,
    requestsPerSecond: `${requests} in ${run.seconds.toFixed(2)} s` + disturbedMark(run.otherCores),
    p50: '',
    p99: '',
    peakRss: `${megabytes(run.peakRssBytes)} (+${megabytes(run.peakRssBytes - run.rssBeforeBytes)})`,
    ratio: ratioText,
    otherCores: run.otherCores,
  };
}

/** V: CalDAV's rows, Radicale's beside ours where it ran. */
function calDavRows(caldav: CalDavResults): Row[] {
  const radicale = `Radicale ${caldav.radicaleVersion ?? ''}`;
  // By one client's time of one answer: Radicale may complete none within the load's window.
  const versus =
    caldav.syncOneClientRadicaleMs === undefined
      ? ''
      : `${ratio(caldav.syncOneClientRadicaleMs / caldav.syncOneClientMs)} × Radicale, one client`;
  const rows: Row[] = [
    {
      scenario: `V1. CalDAV sync-collection returning 10 changes (${size(SYNC_TASKS)}-task collection)`,
      server: 'task-service, SQLite',
      ...measuredCells(caldav.syncOurs),
      ratio: versus,
    },
  ];
  if (caldav.syncRadicale !== undefined)
    rows.push({ scenario: '', server: radicale, ...measuredCells(caldav.syncRadicale), ratio: '' });
  rows.push(
    oneClientRow(
      `V2. CalDAV first sync of ${size(caldav.firstSync.tasks)} tasks as DAVx5 does it (PROPFIND, sync-collection, multiget by 10)`,
      'task-service, SQLite',
      caldav.firstSync,
      '',
    ),
  );
  if (caldav.firstSyncRadicale !== undefined) rows.push(oneClientRow('', radicale, caldav.firstSyncRadicale, ''));
  rows.push(
    oneClientRow(
      `V3. CalDAV calendar-query over ${size(caldav.query.tasks)} tasks, streamed (${megabytes(caldav.query.bytes)})`,
      'task-service, SQLite',
      caldav.query,
      '',
    ),
  );
  return rows;
}

function markdown(rows: readonly Row[]): string {
  const line = (row: Row): string =>
    `| ${[row.scenario, row.server, row.requestsPerSecond, row.p50, row.p99, row.peakRss, row.ratio].join(' | ')} |`;
  return [line(HEADER), '|---|---|--:|--:|--:|--:|---|', ...rows.map(line)].join('\n');
}

export function resultsTable(results: RunResults): string {
  const rows = resultRows(results);
  const disturbed = rows.some((row) => row.otherCores !== undefined && row.otherCores > DISTURBED_CORES);
  const note =
    `(†n): other processes on the machine kept n cores busy on average during this measurement (more than ` +
    `${DISTURBED_CORES}): the row is disturbed; measure again on a quiet machine.`;
  return [markdown(rows), ...(disturbed ? ['', note] : [])].join('\n');
}

export function goalsTable(goals: readonly GoalResult[]): string {
  const verdict = (met: boolean | undefined): string =>
    met === undefined ? 'not measured' : met ? '**met**' : '**missed**';
  return [
    '| Goal | Target | Measured | |',
    '|---|---|---|---|',
    ...goals.map((goal) => `| ${goal.goal} | ${goal.target} | ${goal.measured} | ${verdict(goal.met)} |`),
  ].join('\n');
}
