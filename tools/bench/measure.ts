import { send, type Answer, type RequestSpec } from './http-client.js';
import { UNIQUE_MARK, type LoadResult, type LoadTool } from './load.js';
import { OtherLoad } from './cpu.js';
import { ThreadCpu, type CoresUsed } from './thread-cpu.js';
import { PeakMemory } from './memory.js';
import { progress } from './progress.js';
import { startLimitServer, type Server } from './servers.js';

/** How every load of the run is shaped: the same for every server, so the numbers compare. */
export interface LoadSettings {
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  readonly threads: number;
  readonly timeoutSeconds: number;
}

/** One measured load against one server process. */
export interface Measured {
  readonly load: LoadResult;
  /** The server process's peak resident memory during the measured stretch (warm-up excluded). */
  readonly peakRssBytes: number;
  /** Cores other processes on the machine kept busy meanwhile, on average: disturbance, ideally 0. */
  readonly otherCores: number;
  /** Where the first server's CPU went during the measured stretch, thread by thread. */
  readonly cores: CoresUsed;
}

/** Above this, a measurement is marked as disturbed by other work on the machine. */
export const DISTURBED_CORES = 0.25;

export interface MeasureContext {
  readonly tool: LoadTool;
  readonly settings: LoadSettings;
  readonly scratchDir: string;
}

/**
 * Seconds one measurement, and the whole run, may wait for other work on the machine to end: the
 * run stays well within its 15 minutes even when the machine never calms down.
 */
export const QUIET_WAIT_SECONDS = { each: 60, run: 300 } as const;
let quietWaited = 0;

/** The processes under test: the servers and their companions (PostgreSQL's backends). */
function watched(servers: readonly Server[]): { pids: number[]; companion: string | undefined } {
  return { pids: servers.map((server) => server.child.pid), companion: servers[0]?.companion };
}

/**
 * Waits while other processes keep the machine busy, so a measurement does not start in the
 * middle of someone else's build or benchmark; `pids` and `companion` are the work under test.
 */
export async function waitForQuiet(pids: readonly number[], companion: string | undefined): Promise<void> {
  for (let waited = 0; waited < QUIET_WAIT_SECONDS.each && quietWaited < QUIET_WAIT_SECONDS.run;) {
    const others = await OtherLoad.start(pids, companion);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const cores = await others.stop();
    if (cores <= DISTURBED_CORES) return;
    if (waited === 0) progress(`  waiting for other work on the machine to end (${cores.toFixed(2)} cores busy)`);
    waited += 1;
    quietWaited += 1;
  }
}

/** Waits for quiet before measuring these servers. */
export function awaitQuiet(servers: readonly Server[]): Promise<void> {
  const { pids, companion } = watched(servers);
  return waitForQuiet(pids, companion);
}

/**
 * One load spread over several servers at once: a load tool per server, all running together,
 * each with an even share of the connections and threads.
 */
async function runTogether(
  context: MeasureContext,
  servers: readonly Server[],
  requests: readonly RequestSpec[],
  unique: boolean,
  seconds: number,
): Promise<LoadResult[]> {
  const { tool, settings, scratchDir } = context;
  const share = (total: number): number => Math.max(1, Math.floor(total / servers.length));
  // Each server's load starts at another place in the requests (another account).
  const stride = Math.floor(requests.length / servers.length);
  const rotated = (by: number): RequestSpec[] => [...requests.slice(by), ...requests.slice(0, by)];
  return Promise.all(
    servers.map((server, index) =>
      tool.run(
        {
          port: server.port,
          requests: rotated(index * stride),
          unique,
          seconds,
          connections: share(settings.connections),
          threads: share(settings.threads),
          timeoutSeconds: settings.timeoutSeconds,
        },
        scratchDir,
      ),
    ),
  );
}

/**
 * The loads of servers driven at once as one: their rates add up; each latency percentile is the
 * worse of the servers' (the load tool reports percentiles, not the distributions to merge).
 */
function combinedLoad(loads: readonly LoadResult[]): LoadResult {
  const [first, ...others] = loads;
  if (first === undefined) throw new Error('no load to combine');
  return others.reduce(
    (sum, load) => ({
      requests: sum.requests + load.requests,
      seconds: Math.max(sum.seconds, load.seconds),
      requestsPerSecond: sum.requestsPerSecond + load.requestsPerSecond,
      p50Ms: Math.max(sum.p50Ms, load.p50Ms),
      p99Ms: Math.max(sum.p99Ms, load.p99Ms),
      socketErrors: sum.socketErrors + load.socketErrors,
      badStatus: sum.badStatus + load.badStatus,
    }),
    first,
  );
}

/** The progress line of one measurement, with its failures and disturbance. */
function reportMeasured(name: string, load: LoadResult, otherCores: number): void {
  const failed = load.socketErrors + load.badStatus;
  const notes = [
    ...(failed > 0 ? [`${load.badStatus} bad status and ${load.socketErrors} socket errors`] : []),
    ...(otherCores > DISTURBED_CORES
      ? [`warning: other processes kept ${otherCores.toFixed(2)} cores busy meanwhile`]
      : []),
  ];
  progress(
    `  ${name}: ${Math.round(load.requestsPerSecond).toLocaleString('en')} req/s, ` +
      `p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms${notes.map((note) => `; ${note}`).join('')}`,
  );
}

/**
 * A warm-up (not counted), then the measured load while watching the servers' memory. Several
 * servers (processes sharing one database) are driven at once and measured as one.
 */
export async function measureTogether(
  context: MeasureContext,
  servers: readonly Server[],
  requests: readonly RequestSpec[],
  unique: boolean,
): Promise<Measured> {
  const { pids, companion } = watched(servers);
  await awaitQuiet(servers);
  await runTogether(context, servers, requests, unique, context.settings.warmupSeconds);
  const memories = await Promise.all(pids.map((pid) => PeakMemory.start(pid)));
  const others = await OtherLoad.start(pids, companion);
  const threads = await ThreadCpu.start(pids[0] ?? process.pid);
  const load = combinedLoad(await runTogether(context, servers, requests, unique, context.settings.seconds));
  const cores = await threads.stop();
  const otherCores = await others.stop();
  const peaks = await Promise.all(memories.map((memory) => memory.stop()));
  reportMeasured(servers.map((server) => server.name).join(' + '), load, otherCores);
  // Per process: the peak of the one that grew most.
  return { load, peakRssBytes: Math.max(...peaks), otherCores, cores };
}

/** A warm-up (not counted), then the measured load while watching the server's memory. */
export function measure(
  context: MeasureContext,
  server: Server,
  requests: readonly RequestSpec[],
  unique: boolean,
): Promise<Measured> {
  return measureTogether(context, [server], requests, unique);
}

/** The request with its `{n}` marks filled in, for a single request outside a load. */
export function concrete(spec: RequestSpec, token: string): RequestSpec {
  return {
    ...spec,
    path: spec.path.replaceAll(UNIQUE_MARK, token),
    ...(spec.body === undefined ? {} : { body: spec.body.replaceAll(UNIQUE_MARK, token) }),
  };
}

/**
 * A scenario against the task service: its requests (sent in turn, e.g. one per account), each
 * checked once before they are put under load.
 */
export interface Scenario {
  readonly requests: readonly RequestSpec[];
  readonly unique: boolean;
  /** Throws when a captured answer is not what the scenario is about (wrong count, status...). */
  readonly check: (answer: Answer) => void;
}

export interface VersusLimit {
  readonly ours: Measured;
  readonly limit: Measured;
  readonly answerBytes: number;
}

/**
 * Captures one real answer of the task service to each request and checks it, then measures the
 * service and the limit server replaying the first answer, under the same load in the same run.
 * With several service processes, as many limit processes are measured the same way.
 */
export async function versusLimit(
  context: MeasureContext,
  ours: readonly Server[],
  scenario: Scenario,
): Promise<VersusLimit> {
  const [server] = ours;
  if (server === undefined) throw new Error('no server to measure');
  let first: Answer | undefined;
  for (const [index, request] of scenario.requests.entries()) {
    const target = ours[index % ours.length] ?? server;
    const answer = await send(target.port, concrete(request, `capture${index}`));
    scenario.check(answer);
    first ??= answer;
  }
  if (first === undefined) throw new Error('a scenario without requests');
  const limits: Server[] = [];
  try {
    while (limits.length < ours.length) limits.push(await startLimitServer(first, context.scratchDir));
    const measuredOurs = await measureTogether(context, ours, scenario.requests, scenario.unique);
    const measuredLimit = await measureTogether(context, limits, scenario.requests, scenario.unique);
    return { ours: measuredOurs, limit: measuredLimit, answerBytes: first.body.length };
  } finally {
    await Promise.all(limits.map((limit) => limit.stop()));
  }
}
