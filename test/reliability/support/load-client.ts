/**
 * The overload clients, run in a child process of their own (see overload.ts) so that they do not
 * share an event loop with the test runner. Node built-ins only: overload.ts transpiles this file
 * as it is and runs it with `node`. The plan comes as JSON in argv[2]; the report is printed as
 * one JSON line on standard output.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

export interface LoadPlan {
  readonly port: number;
  /** Write tokens of the accounts the connections use, round robin. */
  readonly tokens: readonly string[];
  /** Task ids of each account (same order as tokens) for GET /v1/tasks/<id>. */
  readonly taskIds: readonly (readonly string[])[];
  readonly connections: number;
  /** Connections opened per millisecond while ramping up. */
  readonly rampPerMs: number;
  /** How long every connection keeps sending, once all of them have had a first answer. */
  readonly durationMs: number;
  /** An answer slower than this is an anomaly. */
  readonly deadlineMs: number;
  /** Wait the Retry-After of an E503 before the next request (as the contract asks clients to). */
  readonly honourRetryAfter: boolean;
}

export interface LoadReport {
  readonly connections: number;
  /** Connections open at the end of the measured phase, each still on its first socket. */
  readonly connectionsHeld: number;
  /** Sockets opened again after the server closed one. */
  readonly reconnects: number;
  /** The longest a connection took to open and get its first answer. */
  readonly warmUpMaxMs: number;
  readonly requests: number;
  readonly ok: number;
  /** E503 answers with Retry-After. */
  readonly shed: number;
  readonly maxMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly byStatus: Readonly<Record<string, number>>;
  /** Resets, time-outs, answers slower than the deadline, other statuses, missing headers. */
  readonly anomalies: number;
  readonly anomalySamples: readonly string[];
  readonly clientLagMaxMs: number;
  readonly seconds: number;
}

interface Operation {
  readonly weight: number;
  readonly name: string;
  readonly method: 'GET' | 'POST';
  readonly path: (account: number) => string;
  readonly body?: string;
}

const ARRAY_BODY = JSON.stringify(
  Array.from({ length: 20 }, (_unused, index) => ({ title: `load array ${index}`, tags: ['load'] })),
);

const HEALTH: Operation = { weight: 15, name: 'health', method: 'GET', path: () => '/healthz' };

function operations(plan: LoadPlan): Operation[] {
  const pick = (account: number): string => {
    const ids = plan.taskIds[account] ?? [];
    return encodeURIComponent(ids[Math.floor(Math.random() * ids.length)] ?? 'none');
  };
  return [
    { weight: 30, name: 'list', method: 'GET', path: () => '/v1/tasks?limit=20' },
    { weight: 15, name: 'get', method: 'GET', path: (account) => `/v1/tasks/${pick(account)}` },
    {
      weight: 20,
      name: 'create',
      method: 'POST',
      path: () => '/v1/tasks',
      body: JSON.stringify({ title: 'load', notes: 'x'.repeat(200) }),
    },
    { weight: 10, name: 'array', method: 'POST', path: () => '/v1/tasks', body: ARRAY_BODY },
    { weight: 10, name: 'settings', method: 'GET', path: () => '/v1/settings' },
    HEALTH,
  ];
}

interface Outcome {
  readonly status: number;
  readonly retryAfterMs: number;
}

class Connection {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private socket: unknown = undefined;
  sockets = 0;

  constructor(
    private readonly plan: LoadPlan,
    private readonly stats: Stats,
    readonly account: number,
  ) {}

  /** One request; resolves with its status, or 0 after a transport failure (counted already). */
  send(operation: Operation, measured: boolean): Promise<Outcome> {
    const token = this.plan.tokens[this.account] ?? '';
    const headers: Record<string, string> = { authorization: `OAuth ${token}` };
    if (operation.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(operation.body));
    }
    return new Promise<Outcome>((resolve) => {
      let started = performance.now();
      const request = http.request(
        {
          host: '127.0.0.1',
          port: this.plan.port,
          method: operation.method,
          path: operation.path(this.account),
          headers,
          agent: this.agent,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => {
            if (measured) this.stats.anomaly(`${operation.name}: answer broken off: ${error.message}`);
            resolve({ status: 0, retryAfterMs: 0 });
          });
          response.on('end', () => {
            const ms = performance.now() - started;
            const status = response.statusCode ?? 0;
            const retryAfter = response.headers['retry-after'];
            const retryAfterMs = retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) * 1000 : 0;
            if (measured)
              this.stats.answer(
                operation.name,
                status,
                ms,
                response.headers,
                Buffer.concat(chunks).toString('utf8'),
                retryAfterMs,
              );
            resolve({ status, retryAfterMs });
          });
        },
      );
      request.on('socket', (socket) => {
        if (socket !== this.socket) {
          this.socket = socket;
          this.sockets += 1;
          if (measured && this.sockets > 1) this.stats.reconnects += 1;
        }
        // The clock starts when the request can go out, not while its connection is opened.
        if (socket.connecting) socket.once('connect', () => (started = performance.now()));
      });
      request.setTimeout(10_000, () => request.destroy(new Error('no answer within 10 s')));
      request.on('error', (error) => {
        const code = 'code' in error && typeof error.code === 'string' ? error.code : error.message;
        if (measured) this.stats.anomaly(`${operation.name}: ${code}`);
        else this.stats.warmUpFailures += 1;
        resolve({ status: 0, retryAfterMs: 0 });
      });
      request.end(operation.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

class Stats {
  requests = 0;
  ok = 0;
  shed = 0;
  reconnects = 0;
  warmUpFailures = 0;
  anomalies = 0;
  readonly samples: string[] = [];
  readonly byStatus: Record<string, number> = {};
  latencies: number[] = [];

  constructor(private readonly deadlineMs: number) {}

  anomaly(text: string): void {
    this.anomalies += 1;
    if (this.samples.length < 20) this.samples.push(text);
  }

  answer(
    name: string,
    status: number,
    ms: number,
    headers: http.IncomingHttpHeaders,
    text: string,
    retryAfterMs: number,
  ): void {
    this.requests += 1;
    this.latencies.push(ms);
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    if (ms > this.deadlineMs) this.anomaly(`${name}: ${status} after ${Math.round(ms)} ms`);
    if (headers['x-content-type-options'] !== 'nosniff' || headers['x-powered-by'] !== undefined) {
      this.anomaly(`${name}: ${status} without nosniff or with X-Powered-By`);
    }
    if (status === 200) {
      this.ok += 1;
    } else if (status === 503 && retryAfterMs > 0 && text.includes('"retcode":"E503"')) {
      this.shed += 1;
    } else {
      this.anomaly(`${name}: ${status} ${text.slice(0, 200)}`);
    }
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function runLoad(plan: LoadPlan): Promise<LoadReport> {
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const stats = new Stats(plan.deadlineMs);
  const ops = operations(plan);
  const totalWeight = ops.reduce((sum, op) => sum + op.weight, 0);
  const pickOperation = (): Operation => {
    let roll = Math.random() * totalWeight;
    for (const op of ops) {
      roll -= op.weight;
      if (roll < 0) return op;
    }
    return HEALTH;
  };

  let measuring = false;
  let stopping = false;
  let warmUpMaxMs = 0;
  let ready = 0;
  let allReady: () => void = () => undefined;
  const everyoneReady = new Promise<void>((resolve) => (allReady = resolve));
  const connections: Connection[] = [];

  const run = async (index: number): Promise<void> => {
    await sleep(index / plan.rampPerMs);
    const connection = new Connection(plan, stats, index % plan.tokens.length);
    connections.push(connection);
    const opened = performance.now();
    // Warm-up: the connection opens and gets a first answer (a shed one is tried again).
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const outcome = await connection.send(HEALTH, false);
      if (outcome.status === 200) break;
      await sleep(outcome.retryAfterMs || 200);
    }
    warmUpMaxMs = Math.max(warmUpMaxMs, performance.now() - opened);
    ready += 1;
    if (ready === plan.connections) allReady();
    await everyoneReady;
    while (!stopping) {
      const outcome = await connection.send(pickOperation(), measuring);
      if (outcome.status === 0 && !stopping) await sleep(100);
      if (outcome.status === 503 && plan.honourRetryAfter) await sleep(outcome.retryAfterMs);
    }
  };

  const all = Array.from({ length: plan.connections }, (_unused, index) => run(index));
  await everyoneReady;
  lag.reset();
  measuring = true;
  const started = performance.now();
  await sleep(plan.durationMs);
  stopping = true;
  await Promise.all(all);
  const seconds = (performance.now() - started) / 1000;
  const held = connections.filter((connection) => connection.sockets === 1).length;
  for (const connection of connections) connection.close();
  const sorted = stats.latencies.sort((a, b) => a - b);
  return {
    connections: plan.connections,
    connectionsHeld: held,
    reconnects: stats.reconnects,
    warmUpMaxMs: Math.round(warmUpMaxMs),
    requests: stats.requests,
    ok: stats.ok,
    shed: stats.shed,
    maxMs: Math.round(sorted[sorted.length - 1] ?? 0),
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    byStatus: stats.byStatus,
    anomalies: stats.anomalies + stats.warmUpFailures,
    anomalySamples: stats.samples,
    clientLagMaxMs: Math.round(lag.max / 1e6),
    seconds: Math.round(seconds * 10) / 10,
  };
}

const entry = process.argv[1];
if (entry !== undefined && import.meta.url === pathToFileURL(entry).href) {
  // Written by overload.ts from a LoadPlan, in the same process tree: not untrusted input.
  const plan = JSON.parse(process.argv[2] ?? '{}') as LoadPlan;
  const report = await runLoad(plan);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
