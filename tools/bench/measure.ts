import { send, type Answer, type RequestSpec } from './http-client.js';
import { UNIQUE_MARK, type LoadResult, type LoadTool } from './load.js';
import { OtherLoad } from './cpu.js';
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

/**
 * Waits while other processes keep the machine busy, so a measurement does not start in the
 * middle of someone else's build or benchmark.
 */
export async function awaitQuiet(server: Server): Promise<void> {
  for (let waited = 0; waited < QUIET_WAIT_SECONDS.each && quietWaited < QUIET_WAIT_SECONDS.run;) {
    const others = await OtherLoad.start(server.child.pid, server.companion);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const cores = await others.stop();
    if (cores <= DISTURBED_CORES) return;
    if (waited === 0) progress(`  waiting for other work on the machine to end (${cores.toFixed(2)} cores busy)`);
    waited += 1;
    quietWaited += 1;
  }
}

/** A warm-up (not counted), then the measured load while watching the server's memory. */
export async function measure(
  context: MeasureContext,
  server: Server,
  requests: readonly RequestSpec[],
  unique: boolean,
): Promise<Measured> {
  const { tool, settings, scratchDir } = context;
  const spec = {
    port: server.port,
    requests,
    unique,
    connections: settings.connections,
    threads: settings.threads,
    timeoutSeconds: settings.timeoutSeconds,
  };
  await awaitQuiet(server);
  await tool.run({ ...spec, seconds: settings.warmupSeconds }, scratchDir);
  const memory = await PeakMemory.start(server.child.pid);
  const others = await OtherLoad.start(server.child.pid, server.companion);
  const load = await tool.run({ ...spec, seconds: settings.seconds }, scratchDir);
  const otherCores = await others.stop();
  const peakRssBytes = await memory.stop();
  const failed = load.socketErrors + load.badStatus;
  const notes = [
    ...(failed > 0 ? [`${load.badStatus} bad status and ${load.socketErrors} socket errors`] : []),
    ...(otherCores > DISTURBED_CORES
      ? [`warning: other processes kept ${otherCores.toFixed(2)} cores busy meanwhile`]
      : []),
  ];
  progress(
    `  ${server.name}: ${Math.round(load.requestsPerSecond).toLocaleString('en')} req/s, ` +
      `p50 ${load.p50Ms.toFixed(2)} ms, p99 ${load.p99Ms.toFixed(2)} ms${notes.map((note) => `; ${note}`).join('')}`,
  );
  return { load, peakRssBytes, otherCores };
}

/** The request with its `{n}` marks filled in, for a single request outside a load. */
export function concrete(spec: RequestSpec, token: string): RequestSpec {
  return {
    ...spec,
    path: spec.path.replaceAll(UNIQUE_MARK, token),
    ...(spec.body === undefined ? {} : { body: spec.body.replaceAll(UNIQUE_MARK, token) }),
  };
}

/** A scenario against the task service: one request, checked once before it is put under load. */
export interface Scenario {
  readonly request: RequestSpec;
  readonly unique: boolean;
  /** Throws when the captured answer is not what the scenario is about (wrong count, status...). */
  readonly check: (answer: Answer) => void;
}

export interface VersusLimit {
  readonly ours: Measured;
  readonly limit: Measured;
  readonly answerBytes: number;
}

/**
 * Captures one real answer of the task service, checks it, then measures the service and the
 * limit server replaying that answer, under the same load in the same run.
 */
export async function versusLimit(context: MeasureContext, ours: Server, scenario: Scenario): Promise<VersusLimit> {
  const answer = await send(ours.port, concrete(scenario.request, 'capture'));
  scenario.check(answer);
  const limit = await startLimitServer(answer, context.scratchDir);
  try {
    const measuredOurs = await measure(context, ours, [scenario.request], scenario.unique);
    const measuredLimit = await measure(context, limit, [scenario.request], scenario.unique);
    return { ours: measuredOurs, limit: measuredLimit, answerBytes: answer.body.length };
  } finally {
    await limit.stop();
  }
}
