import type { Manifest, StoreShape } from './manifest.js';
import type { Measured, VersusLimit } from './measure.js';
import type { StreamedList } from './streaming.js';

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
  readonly radicale?: RadicaleResults;
  /** Why a part did not run (a tool not installed, no database...). */
  readonly skipped: readonly string[];
}
