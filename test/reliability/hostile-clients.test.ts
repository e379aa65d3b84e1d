/**
 * What one hostile or clumsy client can do to everyone (issue #16), against a real `serve --http`
 * on both engines. Each attack runs while another account polls `GET /v1/tasks?limit=1` and
 * `/healthz` and writes now and then: its answers come within 1 s at p99 (stretched on a busy
 * machine by `busyFactor`, at most threefold) and are not refused,
 * the server's peak RSS stays under 1 GB, the process lives, and every write answered 200 is
 * there afterwards. `npm test` runs the attacks at a reduced strength for a few seconds each;
 * `npm run soak` (RELIABILITY_HOSTILE_STRENGTH=full) at the strength the issue measured.
 */
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount } from '../e2e/support/accounts.js';
import { oauth, request, type HttpResponse, type RequestOptions } from '../e2e/support/http.js';
import { cleanUpProcesses, makeTempDir, startServe, type ServeProcess } from '../e2e/support/processes.js';
import { ENGINES } from '../support/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { reportFigures } from './support/figures.js';
import { busyFactor } from './support/machine.js';
import { stalledReader } from './support/stalled-reader.js';
import { memoryOf, startVictim, type VictimReport } from './support/victim.js';

const FULL = process.env['RELIABILITY_HOSTILE_STRENGTH'] === 'full';

const STRENGTH = FULL
  ? {
      largeTasks: 2000,
      pageLimit: 100,
      fullListLimit: 130,
      fullListRounds: 2,
      completions: 1000,
      renames: 1000,
      renamedTasks: 5000,
      stalledReaders: 20,
      stallMs: 60_000,
      tricklers: 1100,
      trickleMs: 60_000,
    }
  : {
      largeTasks: Number(process.env['RELIABILITY_HOSTILE_LARGE_TASKS'] ?? 30),
      pageLimit: 30,
      fullListLimit: 130,
      fullListRounds: 1,
      completions: 300,
      renames: 200,
      renamedTasks: 1000,
      stalledReaders: 20,
      stallMs: 5000,
      tricklers: 1100,
      trickleMs: 6000,
    };

/** Notes of 100,000 `&`: 100 KB stored, 500 KB rendered (`&amp;`). */
const HOSTILE_NOTES = '&'.repeat(100_000);
const ZONES = ['UTC', 'Asia/Tokyo', 'Europe/Berlin', 'America/New_York'];
/** A 53rd weekday of the year falls on 30 or 31 December, never on days 1 to 28. */
const NEVER_RULE = `FREQ=YEARLY;BYMONTHDAY=${Array.from({ length: 28 }, (_unused, index) => index + 1).join(',')};BYDAY=53MO,53TU,53WE,53TH,53FR,53SA,53SU`;
/**
 * The bound is 1 GB at full strength. With 60 large tasks at the reduced strength the
 * unmodified code peaked at 560-740 MB and this code at 320-380 MB: the bound there is set
 * between. `npm test` runs 30 (RELIABILITY_HOSTILE_LARGE_TASKS sets it), a smoke test that keeps
 * the CPU it takes from the other reliability files running beside it.
 */
const RSS_LIMIT_MB = FULL ? 1024 : 480;
/** The bound on the victim's p99, on an idle machine. */
const P99_LIMIT_MS = 1000;
/**
 * How far a busy machine may stretch that bound (see `busyFactor`): at most threefold, so the
 * bound stays under the victim's own 5 s time-out and below what the unmodified code did (reads
 * timed out at 5 s behind a never-matching repeat rule), and the test can still fail.
 */
const MAX_STRETCH = 3;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The attacker's own requests: an E503 is a fair answer to it (the issue asks exactly that of
 * the server), so it waits the Retry-After and asks again, as clients are told to.
 */
async function persist(origin: string, options: RequestOptions): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt += 1) {
    const answer = await request(origin, options);
    if (answer.status !== 503 || attempt >= 30) return answer;
    await sleep(1000 * Number(answer.headers['retry-after'] ?? 1));
  }
}

/** A GET whose answer is read and thrown away as it comes, so a huge list costs the client nothing. */
function drain(port: number, path: string, token: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: oauth(token), agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/**
 * `count` connections each trickling a POST body (no token) a byte every 500 ms; a connection the
 * server closes is opened again, until `durationMs` is over. Resolves with what the server did.
 */
async function trickleBodies(
  port: number,
  count: number,
  durationMs: number,
): Promise<{ connections: number; refused503: number }> {
  const until = performance.now() + durationMs;
  let connections = 0;
  let refused503 = 0;
  const head =
    'POST /v1/tasks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      connections += 1;
      const socket = net.connect({ host: '127.0.0.1', port });
      let timer: NodeJS.Timeout | undefined;
      socket.setEncoding('latin1');
      socket.on('data', (text: string) => {
        if (text.startsWith('HTTP/1.1 503')) refused503 += 1;
      });
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearInterval(timer);
        resolve();
      });
      socket.on('connect', () => {
        socket.write(head);
        timer = setInterval(() => {
          if (performance.now() > until) socket.destroy();
          else socket.write(' ');
        }, 500);
      });
    });
  await Promise.all(
    Array.from({ length: count }, async (_unused, index) => {
      // Opened over about a second, as many clients would: all at once, a turn's flood guard
      // would refuse part of them before they got in.
      await sleep(index);
      while (performance.now() < until) {
        await one();
        // A refused or cut client comes back a second later.
        await sleep(1000);
      }
    }),
  );
  return { connections, refused503 };
}

describe.each(ENGINES)('hostile clients against serve --http on %s', (engine) => {
  let server: ServeProcess | undefined;
  let database: TestDatabase | undefined;
  let attacker = '';
  let victimToken = '';
  let dataDir = '';
  const written: string[] = [];

  function started(): ServeProcess {
    if (server === undefined) throw new Error('serve is not started');
    return server;
  }

  beforeAll(async () => {
    dataDir = await makeTempDir('hostile-clients');
    database = engine === 'postgres' ? await createTestDatabase() : undefined;
    const store = { dataDir, ...(database === undefined ? {} : { databaseUrl: database.url }) };
    attacker = await newAccount(store, 'attacker');
    victimToken = await newAccount(store, 'victim');
    server = await startServe({ ...store, http: true });
  }, 60_000);

  afterAll(async () => {
    await cleanUpProcesses();
    await database?.drop();
  });

  /** Runs `attack` while the victim polls; checks and reports the judgement of the issue. */
  async function judged(name: string, attack: () => Promise<Readonly<Record<string, number>>>): Promise<void> {
    const serve = started();
    const pid = serve.child.pid ?? 0;
    // Peak RSS counted from here (writing 5 to clear_refs resets VmHWM).
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    // Read before the attack adds its own load: what other work on the machine stretches.
    const stretch = Math.min(MAX_STRETCH, busyFactor());
    const p99LimitMs = Math.round(P99_LIMIT_MS * stretch);
    const victim = await startVictim(dataDir, {
      port: serve.port,
      token: victimToken,
      label: `${engine}-${name.replace(/\W+/g, '-')}`,
    });
    const began = performance.now();
    const figures = await attack();
    const seconds = Math.round((performance.now() - began) / 100) / 10;
    const report: VictimReport = await victim.stop();
    written.push(...report.written);
    const { peakMb } = memoryOf(pid);
    const { written: writes, ...shown } = report;
    reportFigures(`${name} (${engine}, ${FULL ? 'full' : 'reduced'})`, {
      ...figures,
      seconds,
      ...shown,
      writes: writes.length,
      peakRssMb: peakMb,
      busyFactor: stretch.toFixed(2),
      p99LimitMs,
    });
    expect(serve.child.exitCode, 'the server died').toBeNull();
    expect(report.failed).toBe(0);
    expect(report.e503).toBeLessThanOrEqual(Math.ceil(report.reads / 100));
    expect(report.p99Ms).toBeLessThan(p99LimitMs);
    expect(peakMb).toBeLessThan(RSS_LIMIT_MB);
  }

  it(
    'large records: paged in four zones and listed whole, six at once',
    { timeout: FULL ? 1_800_000 : 120_000 },
    async () => {
      const { origin, port } = started();
      const perPost = 9;
      for (let first = 0; first < STRENGTH.largeTasks; first += perPost) {
        const body = Array.from({ length: Math.min(perPost, STRENGTH.largeTasks - first) }, (_unused, index) => ({
          title: `large ${first + index}`,
          notes: HOSTILE_NOTES,
        }));
        const answer = await persist(origin, { path: '/v1/tasks', headers: oauth(attacker), body });
        expect(answer.status, answer.text.slice(0, 200)).toBe(200);
      }
      await judged('large records', async () => {
        let pages = 0;
        let bytes = 0;
        for (const timezone of ZONES) {
          const changed = await persist(origin, { path: '/v1/settings', headers: oauth(attacker), body: { timezone } });
          expect(changed.status).toBe(200);
          let cursor = 'c1.0';
          for (let more = true; more; pages += 1) {
            const page = await persist(origin, {
              path: `/v1/tasks?cursor=${cursor}&limit=${STRENGTH.pageLimit}`,
              headers: oauth(attacker),
              timeoutMs: 120_000,
            });
            expect(page.status).toBe(200);
            bytes += page.text.length;
            const parsed = JSON.parse(page.text) as { cursor: string; has_more: boolean };
            cursor = parsed.cursor;
            more = parsed.has_more;
          }
        }
        for (let round = 0; round < STRENGTH.fullListRounds; round += 1) {
          const lists = await Promise.all(
            Array.from({ length: 6 }, () => drain(port, `/v1/tasks?limit=${STRENGTH.fullListLimit}`, attacker)),
          );
          // Six at once may be too much for the server to take in: a fast E503 is a fair answer.
          for (const list of lists) expect([200, 503]).toContain(list.status);
          bytes += lists.reduce((sum, list) => sum + list.bytes, 0);
        }
        return { tasks: STRENGTH.largeTasks, pages, mbRead: Math.round(bytes / 1e6) };
      });
    },
  );

  it('a repeat rule that never matches: one array POST completing many tasks', { timeout: 120_000 }, async () => {
    const { origin } = started();
    const tasks = Array.from({ length: STRENGTH.completions }, (_unused, index) => ({
      id: `never-${index}`,
      title: `never ${index}`,
      start_at: '2026-05-01T09:00:00Z',
      repeater: NEVER_RULE,
    }));
    const created = await persist(origin, { path: '/v1/tasks', headers: oauth(attacker), body: tasks });
    expect(created.status, created.text.slice(0, 200)).toBe(200);
    await judged('never-matching repeat', async () => {
      await sleep(300);
      const began = performance.now();
      const completed = await persist(origin, {
        path: '/v1/tasks',
        headers: oauth(attacker),
        body: tasks.map((task) => ({ id: task.id, completed: '2026-05-01T10:00:00Z' })),
        timeoutMs: 120_000,
      });
      expect(completed.status, completed.text.slice(0, 200)).toBe(200);
      const postMs = Math.round(performance.now() - began);
      await sleep(300);
      return { completions: STRENGTH.completions, postMs };
    });
  });

  it('rename amplification: one array POST renaming a project on many tasks', { timeout: 300_000 }, async () => {
    const { origin } = started();
    let projectId = '';
    for (let first = 0; first < STRENGTH.renamedTasks; first += 500) {
      const body = Array.from({ length: Math.min(500, STRENGTH.renamedTasks - first) }, (_unused, index) => ({
        title: `carried ${first + index}`,
        project: 'renamed often',
      }));
      const answer = await persist(origin, { path: '/v1/tasks', headers: oauth(attacker), body });
      expect(answer.status, answer.text.slice(0, 200)).toBe(200);
      projectId = (JSON.parse(answer.text) as { entries: { project_id: string }[] }).entries[0]?.project_id ?? '';
    }
    await judged('rename amplification', async () => {
      await sleep(300);
      const began = performance.now();
      const renamed = await persist(origin, {
        path: '/v1/projects',
        headers: oauth(attacker),
        body: Array.from({ length: STRENGTH.renames }, (_unused, index) => ({ id: projectId, name: `name ${index}` })),
        timeoutMs: 280_000,
      });
      expect(renamed.status, renamed.text.slice(0, 200)).toBe(200);
      const postMs = Math.round(performance.now() - began);
      await sleep(300);
      return { renames: STRENGTH.renames, tasks: STRENGTH.renamedTasks, postMs };
    });
  });

  it(
    'stalled readers: many clients that stop reading a large list',
    { timeout: FULL ? 300_000 : 120_000 },
    async () => {
      const { origin, port } = started();
      // The large records of the first attack make a list of 15 MB or more, more than the socket
      // buffers of both ends hold, so a reader that stops reading stalls its stream; with the
      // tasks of the attacks before, it is over one batch of the store (500), so on SQLite each
      // stream reads from a snapshot of its own.
      const walFile = path.join(dataDir, 'tasks.sqlite-wal');
      const walMb = (): number => {
        try {
          return Math.round(statSync(walFile).size / 1e5) / 10;
        } catch {
          return 0;
        }
      };
      await judged('stalled readers', async () => {
        const walBefore = walMb();
        const readers = Array.from({ length: STRENGTH.stalledReaders }, () =>
          stalledReader(port, '/v1/tasks', attacker),
        );
        const statuses = await Promise.all(readers.map((reader) => reader.status));
        // The attacker keeps writing meanwhile: on SQLite a pinned snapshot made the WAL grow.
        const until = performance.now() + STRENGTH.stallMs;
        let writes = 0;
        while (performance.now() < until) {
          const answer = await persist(origin, {
            path: '/v1/tasks',
            headers: oauth(attacker),
            body: Array.from({ length: 20 }, (_unused, index) => ({
              title: `churn ${writes}-${index}`,
              notes: 'x'.repeat(2000),
            })),
          });
          expect(answer.status).toBe(200);
          writes += 1;
        }
        const walPeak = walMb();
        const ends = await Promise.all(readers.map((reader) => reader.finish(FULL ? 40_000 : 0)));
        return {
          readers: STRENGTH.stalledReaders,
          streamed: statuses.filter((status) => status === 200).length,
          refused503: statuses.filter((status) => status === 503).length,
          cutByServer: ends.filter((end) => end.closed && !end.text.endsWith('0\r\n\r\n')).length,
          writePosts: writes,
          walBeforeMb: walBefore,
          walPeakMb: walPeak,
        };
      });
    },
  );

  it(
    'slow bodies: many connections trickling a POST body without a token',
    { timeout: FULL ? 300_000 : 120_000 },
    async () => {
      const { port } = started();
      await judged('slow bodies', async () => {
        const trickled = await trickleBodies(port, STRENGTH.tricklers, STRENGTH.trickleMs);
        return { tricklers: STRENGTH.tricklers, ...trickled };
      });
    },
  );

  it('is alive afterwards, and every write answered 200 is there', async () => {
    const { origin } = started();
    const health = await request(origin, { path: '/healthz' });
    expect(health.text).toBe('{"status":"ok"}');
    const list = await request(origin, { path: '/v1/tasks', headers: oauth(victimToken) });
    const ids = new Set((JSON.parse(list.text) as { entries: { id: string }[] }).entries.map((task) => task.id));
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((id) => !ids.has(id))).toEqual([]);
  });
});
