/**
 * The other account while an attack runs (issue #16, "how it is judged"), in a process of its own
 * so that the attacker's work in the test runner does not delay its clock: it polls
 * `GET /v1/tasks?limit=1` and `/healthz` back to back and writes a task now and then, each on a
 * new connection, timing every answer. Node built-ins only (victim.ts transpiles it as it is).
 * The plan comes as JSON in argv[2]; a line on standard input stops it, and the report is printed
 * as one JSON line on standard output.
 */
import http from 'node:http';
import { pathToFileURL } from 'node:url';

export interface VictimPlan {
  readonly port: number;
  readonly token: string;
  /** Ids of the tasks written start with it. */
  readonly label: string;
}

export interface VictimReport {
  readonly reads: number;
  /** Reads answered 200. */
  readonly ok: number;
  readonly e503: number;
  /** Anything else: other statuses, resets, time-outs (5 s). */
  readonly failed: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Ids of the tasks whose POST was answered 200. */
  readonly written: readonly string[];
  /** How the writes were answered: `status:count` pairs (0: no answer). */
  readonly writeStatuses: string;
}

const WRITE_EVERY = 5;
const TIMEOUT_MS = 5000;

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/** One request on a new connection: its status (0 for a failure) and how long it took. */
function timed(
  plan: VictimPlan,
  path: string,
  withToken: boolean,
  body?: string,
): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const headers: Record<string, string> = withToken ? { authorization: `OAuth ${plan.token}` } : {};
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve) => {
    const done = (status: number): void => resolve({ ms: performance.now() - started, status });
    const req = http.request(
      { host: '127.0.0.1', port: plan.port, path, method: body === undefined ? 'GET' : 'POST', headers, agent: false },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => done(res.statusCode ?? 0));
        res.on('error', () => done(0));
      },
    );
    req.setTimeout(TIMEOUT_MS, () => req.destroy(new Error('time-out')));
    req.on('error', () => done(0));
    req.end(body);
  });
}

export async function runVictim(plan: VictimPlan, stopped: () => boolean): Promise<VictimReport> {
  const times: number[] = [];
  const written: string[] = [];
  const writeStatuses = new Map<number, number>();
  let ok = 0;
  let e503 = 0;
  let failed = 0;
  for (let round = 0; !stopped(); round += 1) {
    for (const [path, withToken] of [
      ['/v1/tasks?limit=1', true],
      ['/healthz', false],
    ] as const) {
      const { ms, status } = await timed(plan, path, withToken);
      times.push(ms);
      if (status === 200) ok += 1;
      else if (status === 503) e503 += 1;
      else failed += 1;
    }
    if (round % WRITE_EVERY === 0) {
      const id = `${plan.label}-${round}`;
      const { status } = await timed(plan, '/v1/tasks', true, JSON.stringify({ id, title: `victim ${round}` }));
      if (status === 200) written.push(id);
      writeStatuses.set(status, (writeStatuses.get(status) ?? 0) + 1);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    reads: times.length,
    ok,
    e503,
    failed,
    p50Ms: Math.round(percentile(sorted, 0.5)),
    p99Ms: Math.round(percentile(sorted, 0.99)),
    maxMs: Math.round(sorted.at(-1) ?? 0),
    written,
    writeStatuses: [...writeStatuses].map(([status, count]) => `${status}:${count}`).join(','),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const plan = JSON.parse(process.argv[2] ?? '{}') as VictimPlan;
  let stop = false;
  process.stdin.once('data', () => (stop = true));
  const report = await runVictim(plan, () => stop);
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}
