import { mkdir, readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import { AccountService } from '../../src/service/accounts.js';
import { nowMicros } from '../../src/domain/time.js';
import { openStore } from '../../src/store/open.js';
import { count, megabytes, ms, ratio } from './format.js';
import { send, sendOk, type RequestSpec } from './http-client.js';
import type { LoadResult } from './load.js';
import { measure, type MeasureContext, type Measured } from './measure.js';
import { createBenchDatabase, postgresVersion, type BenchDatabase } from './postgres.js';
import { freePort, sleep } from './processes.js';
import { progress } from './progress.js';
import { startLimitServer, startTaskService, type Server, type ServiceStore } from './servers.js';
import { createScenario } from './task-scenarios.js';
import type { CoresUsed } from './thread-cpu.js';
import { WebhookReceiver } from './webhook-receiver.js';

/*
 * W: issue #24's figures. On a fresh store per engine (one serve process, hooks to a local
 * receiver answering 204, --webhook-allow-private): C without a hook, with one that wants no task
 * event (reminders alone) and with one that wants every event, in the same run, where each one's
 * CPU went, and the change-to-delivery lag under C's load; on SQLite, 10,000 requests waiting for
 * changes while another account is listed (and held by a bare node:http server, the limit), and
 * reminders fired per second.
 */

/** A load and where its CPU went. */
export interface CreatesLoad {
  readonly load: LoadResult;
  readonly cores: CoresUsed;
}

export interface HookedCreates {
  readonly engine: 'sqlite' | 'postgres';
  readonly plain: CreatesLoad;
  /** With a hook that wants no event of a task: what a hook costs the changes it does not want. */
  readonly unwanted: CreatesLoad;
  readonly hooked: CreatesLoad;
  readonly delivered: number;
  /** From the end of the hooked load to its last delivery: 0 when the sender kept up. */
  readonly drainMs: number;
  readonly lagP50Ms: number;
  readonly lagP99Ms: number;
  readonly probes: number;
  readonly probesDelivered: number;
}

export interface Waiting {
  readonly waiters: number;
  readonly rssBeforeBytes: number;
  readonly rssWithBytes: number;
  /** The same requests held by a bare node:http server (the limit): what Node itself costs. */
  readonly limitRssBeforeBytes: number;
  readonly limitRssWithBytes: number;
  readonly listAlone: LoadResult;
  readonly listWhileWaiting: LoadResult;
  /** Waiting requests answered within 5 s of a change to their account. */
  readonly woken: number;
}

export interface Reminders {
  readonly reminders: number;
  readonly seconds: number;
  readonly perSecond: number;
}

export interface WebhooksResults {
  readonly creates: readonly HookedCreates[];
  readonly waiting?: Waiting;
  readonly reminders?: Reminders;
}

const WAITERS = 10_000;
const REMINDERS = 2_000;
/** A probe create is sent this often during the hooked load; its delivery's lag is measured. */
const PROBE_EVERY_MS = 25;
/** C without and with hooks is measured this many times in turn, the faster of each kept: the machine is shared. */
const ROUNDS = 2;
/** The faster of two loads (the other was more disturbed). */
function faster(kept: CreatesLoad | undefined, { load, cores }: Measured): CreatesLoad {
  return kept === undefined || load.requestsPerSecond > kept.load.requestsPerSecond ? { load, cores } : kept;
}
/** How long the backlog of deliveries may take to drain after the load. */
const DRAIN_MS = 120_000;

function auth(token: string): Record<string, string> {
  return { authorization: `OAuth ${token}`, 'content-type': 'application/json' };
}

/** A fresh store with `names` as accounts, each with a write token; the service is started on it. */
async function freshService(
  engine: 'sqlite' | 'postgres',
  workDir: string,
  names: readonly string[],
): Promise<{ server: Server; tokens: string[]; metricsPort: number; database?: BenchDatabase }> {
  const dataDir = path.join(workDir, `w-${engine}`);
  await mkdir(dataDir, { recursive: true });
  const database = engine === 'postgres' ? await createBenchDatabase() : undefined;
  const location: ServiceStore =
    database === undefined ? { engine: 'sqlite', dataDir } : { engine: 'postgres', url: database.url, dataDir };
  const store = await openStore(
    location.engine === 'sqlite' ? location : { engine: 'postgres', url: location.url, dataDir, pooled: false },
  );
  const tokens: string[] = [];
  try {
    await store.migrate();
    const accounts = new AccountService(store, nowMicros);
    for (const name of names) {
      await accounts.addUser(name, null, 'Europe/Berlin');
      tokens.push(await accounts.createToken(name, 'write', 'bench', null));
    }
  } finally {
    await store.close();
  }
  const metricsPort = await freePort();
  const server = await startTaskService(`task-service-w-${engine}`, location, workDir, [
    '--webhook-allow-private',
    '--metrics-port',
    String(metricsPort),
  ]);
  return { server, tokens, metricsPort, ...(database === undefined ? {} : { database }) };
}

async function addHook(port: number, token: string, url: string, events: readonly string[] = ['*']): Promise<void> {
  await sendOk(port, {
    method: 'POST',
    path: '/v1/webhooks',
    headers: auth(token),
    body: JSON.stringify({ url, events }),
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN;
}

/** Creates a task titled `title` every PROBE_EVERY_MS until `stop()`, noting when each was answered. */
function probeCreates(port: number, token: string, tag: string): { stop: () => Promise<Map<string, number>> } {
  const answered = new Map<string, number>();
  let running = true;
  const loop = (async () => {
    for (let index = 0; running; index += 1) {
      const title = `lag probe ${tag} ${index}`;
      const answer = await send(port, {
        method: 'POST',
        path: '/v1/tasks',
        headers: auth(token),
        body: JSON.stringify({ title }),
      });
      if (answer.status === 200) answered.set(title, performance.now());
      await sleep(PROBE_EVERY_MS);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return answered;
    },
  };
}

/** C on an account without hooks, then on one with a hook, then the lag of probes sent meanwhile. */
async function hookedCreates(
  context: MeasureContext,
  engine: 'sqlite' | 'postgres',
  workDir: string,
  receiver: WebhookReceiver,
): Promise<HookedCreates> {
  const { server, tokens, database } = await freshService(engine, workDir, ['plain', 'unwanted', 'hooked', 'probe']);
  const [plainToken = '', unwantedToken = '', hookedToken = '', probeToken = ''] = tokens;
  try {
    await addHook(server.port, unwantedToken, receiver.url, ['reminder.due']);
    await addHook(server.port, hookedToken, receiver.url);
    await addHook(server.port, probeToken, receiver.url);
    let plain: CreatesLoad | undefined;
    let unwanted: CreatesLoad | undefined;
    let hooked: CreatesLoad | undefined;
    const lags: number[] = [];
    let delivered = 0;
    let drainMs = 0;
    let probes = 0;
    for (let round = 1; round <= ROUNDS; round += 1) {
      progress(`W. C without hooks (${engine}, round ${round} of ${ROUNDS})`);
      plain = faster(plain, await measure(context, server, createScenario([plainToken]).requests, false));
      progress(`W. C with a hook that wants no task event (${engine}, round ${round})`);
      unwanted = faster(unwanted, await measure(context, server, createScenario([unwantedToken]).requests, false));
      progress(`W. C with a hook, a probe create every ${PROBE_EVERY_MS} ms on another (${engine}, round ${round})`);
      const before = receiver.count('task.created');
      const probe = probeCreates(server.port, probeToken, `round ${round}`);
      hooked = faster(hooked, await measure(context, server, createScenario([hookedToken]).requests, false));
      const answered = await probe.stop();
      const loadEnded = performance.now();
      // The backlog is done once no delivery came for 2 s.
      await receiver.quiet(2000, DRAIN_MS);
      delivered += receiver.count('task.created') - before;
      drainMs = Math.max(drainMs, receiver.lastArrival - loadEnded);
      probes += answered.size;
      for (const [title, at] of answered) {
        const arrived = receiver.arrivalOf(title);
        if (arrived !== undefined) lags.push(Math.max(0, arrived - at));
      }
    }
    if (plain === undefined || unwanted === undefined || hooked === undefined) throw new Error('no round of W ran');
    lags.sort((a, b) => a - b);
    progress(
      `  ${count(delivered)} deliveries, the last ${ms(drainMs)} ms after a load; lag p50 ${ms(percentile(lags, 50))} ms, p99 ${ms(percentile(lags, 99))} ms over ${lags.length} probes`,
    );
    return {
      engine,
      plain,
      unwanted,
      hooked,
      delivered,
      drainMs,
      lagP50Ms: percentile(lags, 50),
      lagP99Ms: percentile(lags, 99),
      probes,
      probesDelivered: lags.length,
    };
  } finally {
    await server.stop();
    await database?.drop();
  }
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) * 1024;
}

const cursorSchema = z.object({ cursor: z.string() });

/** A waiting request from this loopback address; resolves when its answer ended (NaN on failure). */
function waitFrom(localAddress: string, port: number, target: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const request = httpRequest(
      { host: '127.0.0.1', port, path: target, localAddress, headers: auth(token), agent: false, timeout: 90_000 },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode === 200 ? performance.now() : Number.NaN));
      },
    );
    request.once('timeout', () => request.destroy());
    request.once('error', () => resolve(Number.NaN));
    request.end();
  });
}

/** WAITERS requests waiting on one account while another account's first page is listed. */
async function waiting(
  context: MeasureContext,
  server: Server,
  waitToken: string,
  listToken: string,
): Promise<Waiting> {
  const tasks = Array.from({ length: 100 }, (_, index) => ({ title: `listed ${index}` }));
  await sendOk(server.port, {
    method: 'POST',
    path: '/v1/tasks',
    headers: auth(listToken),
    body: JSON.stringify(tasks),
  });
  const list: RequestSpec = { method: 'GET', path: '/v1/tasks?limit=50', headers: auth(listToken) };
  progress('W. list 50 tasks, alone (SQLite)');
  const listAlone = (await measure(context, server, [list], false)).load;
  const head = await sendOk(server.port, {
    method: 'GET',
    path: '/v1/tasks?updated_after=2100-01-01',
    headers: auth(waitToken),
  });
  const { cursor } = cursorSchema.parse(JSON.parse(head.body.toString('utf8')));
  const target = `/v1/tasks?cursor=${encodeURIComponent(cursor)}&wait=60`;
  progress(`W. ${count(WAITERS)} requests held by a bare node:http server (the limit)`);
  const limit = await startLimitServer(head, context.scratchDir, true);
  let held: Promise<number>[];
  let limitRssBeforeBytes: number;
  let limitRssWithBytes: number;
  try {
    limitRssBeforeBytes = await rssOf(limit.child.pid);
    held = await openWaits(limit.port, target, waitToken);
    limitRssWithBytes = await rssOf(limit.child.pid);
  } finally {
    // Stopping answers what it holds.
    await limit.stop();
  }
  await Promise.all(held);
  const rssBeforeBytes = await rssOf(server.child.pid);
  progress(`W. ${count(WAITERS)} requests waiting for changes (SQLite)`);
  const waits = await openWaits(server.port, target, waitToken);
  const rssWithBytes = await rssOf(server.child.pid);
  progress('W. list 50 tasks while they wait (SQLite)');
  const listWhileWaiting = (await measure(context, server, [list], false)).load;
  const changed = performance.now();
  await sendOk(server.port, {
    method: 'POST',
    path: '/v1/tasks',
    headers: auth(waitToken),
    body: JSON.stringify({ title: 'wakes them' }),
  });
  const ends = await Promise.all(waits);
  const woken = ends.filter((end) => end - changed < 5000).length;
  progress(
    `  RSS ${megabytes(rssBeforeBytes)} → ${megabytes(rssWithBytes)}; list p99 ${ms(listAlone.p99Ms)} → ${ms(listWhileWaiting.p99Ms)} ms; ${count(woken)} woken within 5 s`,
  );
  return {
    waiters: WAITERS,
    rssBeforeBytes,
    rssWithBytes,
    limitRssBeforeBytes,
    limitRssWithBytes,
    listAlone,
    listWhileWaiting,
    woken,
  };
}

/** Opens WAITERS requests to `target`, and resolves once they are in (2 s after the last). */
async function openWaits(port: number, target: string, token: string): Promise<Promise<number>[]> {
  const waits: Promise<number>[] = [];
  for (let index = 0; index < WAITERS; index += 1) {
    // The service takes 4,096 connections per address: the waiters come from several.
    const from = `127.0.0.${2 + Math.floor(index / 3000)}`;
    waits.push(waitFrom(from, port, target, token));
    // Opened a few hundred at a time: the listen backlog is not the thing measured.
    if (index % 200 === 199) await sleep(20);
  }
  await sleep(2000);
  return waits;
}

/** A POST of tasks, sent again while the service sheds load (503). */
async function postShed(port: number, token: string, body: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await send(port, { method: 'POST', path: '/v1/tasks', headers: auth(token), body });
    if (answer.status === 200) return;
    if (answer.status !== 503 || attempt === 20) throw new Error(`POST /v1/tasks answered ${answer.status}`);
    await sleep(500);
  }
}

async function firedSoFar(metricsPort: number): Promise<number> {
  const answer = await sendOk(metricsPort, { method: 'GET', path: '/metrics', headers: {} });
  const line = /^task_service_reminders_fired_total (\d+)/m.exec(answer.body.toString('utf8'));
  return Number(line?.[1] ?? 0);
}

/** REMINDERS tasks with a reminder at one time, a few seconds ahead; fired per second from then. */
async function reminders(server: Server, metricsPort: number, token: string): Promise<Reminders> {
  const dueMs = Date.now() + 8000;
  const at = new Date(dueMs)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' +0000');
  for (let sent = 0; sent < REMINDERS; sent += 100) {
    const tasks = Array.from({ length: 100 }, (_, index) => ({
      title: `reminded ${sent + index}`,
      reminders: [{ at }],
    }));
    await postShed(server.port, token, JSON.stringify(tasks));
  }
  const before = await firedSoFar(metricsPort);
  progress(`W. ${count(REMINDERS)} reminders due at one time (SQLite)`);
  let fired = 0;
  while (fired < REMINDERS && Date.now() < dueMs + 120_000) {
    await sleep(100);
    fired = (await firedSoFar(metricsPort)) - before;
  }
  const seconds = (Date.now() - dueMs) / 1000;
  progress(`  ${count(fired)} fired in ${seconds.toFixed(1)} s from their time`);
  return { reminders: fired, seconds, perSecond: fired / seconds };
}

/** Part W on SQLite, and on PostgreSQL when one answers. */
export async function runWebhooksPart(context: MeasureContext, workDir: string): Promise<WebhooksResults> {
  const receiver = await WebhookReceiver.start();
  try {
    const creates = [await hookedCreates(context, 'sqlite', workDir, receiver)];
    if ((await postgresVersion()) === undefined) progress('no PostgreSQL answers: W on SQLite only');
    else creates.push(await hookedCreates(context, 'postgres', workDir, receiver));
    const { server, tokens, metricsPort } = await freshService('sqlite', path.join(workDir, 'w2'), [
      'waits',
      'lists',
      'reminded',
    ]);
    try {
      const [waitToken = '', listToken = '', remindedToken = ''] = tokens;
      await addHook(server.port, remindedToken, receiver.url);
      // Reminders first: the 10,000 answers at the end of the waits leave the process busy a while.
      const fired = await reminders(server, metricsPort, remindedToken);
      return { creates, waiting: await waiting(context, server, waitToken, listToken), reminders: fired };
    } finally {
      await server.stop();
    }
  } finally {
    await receiver.close();
  }
}

function kilobytesEach(bytes: number, count: number): string {
  return `${(bytes / count / 1000).toFixed(1)} KB`;
}

/** Part W as a section of the report. */
export function webhooksMarkdown(results: WebhooksResults): string {
  const lines = [
    '## W. Webhooks, waits and reminders (issue #24)',
    '',
    'A fresh store per engine, one `serve` process with `--webhook-allow-private`, hooks to a local receiver answering 204. ' +
      `C: the faster of ${ROUNDS} rounds each, in turn. ` +
      `Lag: a create every ${PROBE_EVERY_MS} ms on another hooked account during the hooked C load, from its answer to its delivery.`,
    '',
    '| Engine | C without hooks | C, a hook wanting no task event | ratio | C with a hook | ratio | deliveries | longest backlog after a load | lag p50 | lag p99 | probes delivered |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  const rate = ({ load }: CreatesLoad): string => `${count(load.requestsPerSecond)} req/s, p99 ${ms(load.p99Ms)} ms`;
  const versus = (load: CreatesLoad, plain: CreatesLoad): string =>
    ratio(load.load.requestsPerSecond / plain.load.requestsPerSecond);
  for (const row of results.creates) {
    lines.push(
      `| ${row.engine} | ${rate(row.plain)} | ${rate(row.unwanted)} | ${versus(row.unwanted, row.plain)} | ` +
        `${rate(row.hooked)} | ${versus(row.hooked, row.plain)} | ${count(row.delivered)} | ${ms(row.drainMs)} ms | ` +
        `${ms(row.lagP50Ms)} ms | ${ms(row.lagP99Ms)} ms | ${row.probesDelivered} of ${row.probes} |`,
    );
  }
  lines.push(
    '',
    "Where the CPU went during those loads, in cores on average (of the machine's 2): the serve process's request " +
      'thread (its main thread, which answers every request), and what that thread spent per create; its other ' +
      "threads (the delivery thread, libuv's pool, V8's helpers); the bench process (wrk's driver and the receiver); " +
      'the whole machine (PostgreSQL, wrk and the kernel included); and how long the request thread was ready to ' +
      'run but waited for a core (Linux schedstat), in cores too.',
    '',
    '| Engine | Load | request thread | per create | waiting for a core | other threads | bench | machine |',
    '|---|---|---|---|---|---|---|---|',
  );
  for (const row of results.creates) {
    for (const [name, { load, cores }] of [
      ['without hooks', row.plain],
      ['a hook wanting no task event', row.unwanted],
      ['with a hook', row.hooked],
    ] as const) {
      lines.push(
        `| ${row.engine} | ${name} | ${cores.requestThread.toFixed(2)} | ` +
          `${count((cores.requestThread * 1e6) / load.requestsPerSecond)} µs | ` +
          `${cores.requestThreadWaiting === null ? 'not kept' : cores.requestThreadWaiting.toFixed(2)} | ` +
          `${cores.otherThreads.toFixed(2)} | ` +
          `${cores.bench.toFixed(2)} | ${cores.machine.toFixed(2)} |`,
      );
    }
  }
  const { waiting: w, reminders: r } = results;
  if (w !== undefined) {
    lines.push(
      '',
      `- ${count(w.waiters)} requests waiting on one SQLite process: RSS ${megabytes(w.rssBeforeBytes)} → ` +
        `${megabytes(w.rssWithBytes)} (${kilobytesEach(w.rssWithBytes - w.rssBeforeBytes, w.waiters)} each; a bare ` +
        `node:http server holding as many: ${megabytes(w.limitRssBeforeBytes)} → ${megabytes(w.limitRssWithBytes)}, ` +
        `${kilobytesEach(w.limitRssWithBytes - w.limitRssBeforeBytes, w.waiters)} each); another account's list of 50: ${count(w.listAlone.requestsPerSecond)} → ` +
        `${count(w.listWhileWaiting.requestsPerSecond)} req/s, p99 ${ms(w.listAlone.p99Ms)} → ${ms(w.listWhileWaiting.p99Ms)} ms; ` +
        `${count(w.woken)} answered within 5 s of a change.`,
    );
  }
  if (r !== undefined) {
    lines.push(
      `- Reminders: ${count(r.reminders)} due at one time fired in ${r.seconds.toFixed(1)} s from it ` +
        `(${count(r.perSecond)}/s, with a hook, on SQLite).`,
    );
  }
  return `${lines.join('\n')}\n`;
}
