import type { RequestSpec } from './http-client.js';

/** One measured stretch of load against one server. */
export interface LoadSpec {
  readonly port: number;
  /** Sent in turn. */
  readonly requests: readonly RequestSpec[];
  /** When true, `{n}` in a path or body is replaced by a token unique in the run (new ids, new hrefs). */
  readonly unique: boolean;
  readonly seconds: number;
  readonly connections: number;
  readonly threads: number;
  readonly timeoutSeconds: number;
}

export interface LoadResult {
  readonly requests: number;
  readonly seconds: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Connect, read and write errors and timeouts. */
  readonly socketErrors: number;
  /** Answers with a status of 400 or more. */
  readonly badStatus: number;
}

/** A load generator running in a process of its own (wrk). */
export interface LoadTool {
  readonly name: string;
  readonly version: string;
  run(spec: LoadSpec, scratchDir: string): Promise<LoadResult>;
}

/** `{n}` marks where a unique token goes in a request that must not repeat (ids, hrefs, UIDs). */
export const UNIQUE_MARK = '{n}';
