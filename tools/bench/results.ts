import type { Manifest, StoreShape } from './manifest.js';
import type { Measured, VersusLimit } from './measure.js';
import type { PgbenchResults } from './pgbench.js';
import type { StreamedList } from './streaming.js';
import type { CalDavResults } from './caldav-part.js';

/** The task-service scenarios that run against a limit server, in the order they run. */
export const SERVICE_SCENARIOS = ['A', 'B', 'C', 'D', 'E-small', 'E-big'] as const;
export type ServiceScenario = (typeof SERVICE_SCENARIOS)[number];

export interface EngineResults {
  readonly engine: 'sqlite' | 'postgres';
  readonly shape: StoreShape;
  readonly manifest: Manifest;
  /** Whether this run generated the store (PostgreSQL: always) and how long that took. */
  readonly generatedThisRun: boolean;
  readonly scenarios: Partial<Record<ServiceScenario, VersusLimit>>;
}

/** The scenarios G2 repeats with several service processes, each spread over every account. */
export const SCALED_SCENARIOS = ['A', 'E-small', 'C'] as const;
export type ScaledScenario = (typeof SCALED_SCENARIOS)[number];

/** G2's rows, in the table and the progress lines. */
export const SCALED_TITLES: Readonly<Record<ScaledScenario, string>> = {
  A: 'G2/A. list 50 tasks by cursor',
  'E-small': 'G2/E. sync returning 10 changes',
  C: 'G2/C. durable create',
};

/** G2: PostgreSQL served by several `serve` processes on one database, driven at once. */
export interface ScaledResults {
  readonly processes: number;
  /** The accounts each scenario's requests go to in turn: every generated account. */
  readonly accounts: number;
  readonly scenarios: Partial<Record<ScaledScenario, VersusLimit>>;
  /** PostgreSQL's own limit for C's transaction; absent when pgbench is not installed. */
  readonly pgbench?: PgbenchResults;
}

export interface RadicaleResults {
  readonly version: string;
  readonly collectionSize: number;
  readonly create?: Measured;
  /** Each sync is two requests: REPORT sync-collection, then calendar-multiget. */
  readonly sync?: Measured;
}

export interface RunResults {
  readonly sqlite?: EngineResults;
  readonly fullList?: StreamedList;
  readonly postgres?: EngineResults;
  readonly postgresScaled?: ScaledResults;
  readonly radicale?: RadicaleResults;
  /** V: CalDAV, beside Radicale (caldav-part.ts). */
  readonly caldav?: CalDavResults;
  /** Why a part did not run (a tool not installed, no database...). */
  readonly skipped: readonly string[];
}
