import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { describeOnEachRoute } from '../support/postgres-routes.js';
import { newAccount } from './support/accounts.js';
import type { HttpResponse } from './support/http.js';
import { KeepAliveClient } from './support/keep-alive.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  startServe,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, taskListSchema, type WireTask } from './support/wire.js';

/*
 * Issue #3, process level: two `serve` processes on one PostgreSQL database, 16 writers hammering
 * one account through both, and a reader syncing through both at once. What it saw must be the
 * database's final state, each change at most once, in `rev` order (API.md section 5).
 */

const USERNAME = 'sync-user';
/** Wire times carry this zone's `+0530`, which the updated_after reader sends back URL-encoded. */
const ZONE = 'Asia/Kolkata';
const WRITERS_PER_PROCESS = 8;
const WRITE_MS = 5_000;
const PAGE_LIMIT = 50;
/** Tasks made before the writers start, so updates and deletions have targets at once. */
const SEED_TASKS = 100;
/** Times a writer retries a request answered E503 (with Retry-After) before calling it a failure. */
const MAX_RETRIES = 10;

interface WriteLoad {
  /** Writes answered 200. */
  readonly answered: number;
  /** E503 answers (with Retry-After) that were retried. */
  readonly retried: number;
  /** Anything else: a status other than 200/E503, an E503 without Retry-After, a transport error. */
  readonly failures: readonly string[];
  readonly elapsedMs: number;
}

/** Task ids that writers may update or delete; shared by all writers, so they meet on the same tasks. */
class LiveIds {
  private readonly ids: string[] = [];
  add(id: string): void {
    this.ids.push(id);
  }
  /** A random live id; `take` also removes it (a deletion), so few writers delete the same task. */
  pick(take: boolean): string | undefined {
    if (this.ids.length === 0) return undefined;
    const index = Math.floor(Math.random() * this.ids.length);
    const id = this.ids[index];
    if (take) {
      const last = this.ids.pop();
      if (last !== undefined && index < this.ids.length) this.ids[index] = last;
    }
    return id;
  }
  get size(): number {
    return this.ids.length;
  }
}

/** One write: a create (client-made id), an update (POST with id) or a deletion (setting `deleted`). */
function nextWrite(live: LiveIds, name: string, serial: number): { body: Record<string, unknown>; created?: string } {
  const roll = Math.random();
  if (live.size < 20 || roll < 0.4) {
    const id = `${name}-${serial}`;
    return { body: { id, title: `made by ${name} #${serial}`, priority: serial % 4 }, created: id };
  }
  const id = live.pick(roll >= 0.85);
  if (id === undefined) return nextWrite(live, name, serial);
  if (roll >= 0.85) return { body: { id, deleted: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } };
  return { body: { id, title: `changed by ${name} #${serial}`, priority: (serial + 1) % 4, tags: [name] } };
}

/** `writersPerOrigin` writers per server, each on its own kept-alive connection, for `durationMs`. */
async function runWriters(
  origins: readonly string[],
  token: string,
  live: LiveIds,
  durationMs: number,
): Promise<WriteLoad> {
  let answered = 0;
  let retried = 0;
  const failures: string[] = [];
  const started = Date.now();
  const deadline = started + durationMs;
  const headers = { authorization: `OAuth ${token}` };
  const writer = async (origin: string, name: string): Promise<void> => {
    const client = new KeepAliveClient(origin);
    try {
      for (let serial = 1; Date.now() < deadline && failures.length === 0; serial++) {
        const write = nextWrite(live, name, serial);
        for (let attempt = 0; ; attempt++) {
          let response: HttpResponse;
          try {
            response = await client.request({ path: '/v1/tasks', headers, body: write.body });
          } catch (error) {
            failures.push(`${name}: ${String(error)}`);
            return;
          }
          if (response.status === 200) {
            answered += 1;
            if (write.created !== undefined) live.add(write.created);
            break;
          }
          const retryAfter = Number(response.headers['retry-after']);
          if (response.status === 503 && retryAfter > 0 && attempt < MAX_RETRIES) {
            retried += 1;
            await sleep(retryAfter * 1000);
            continue;
          }
          failures.push(`${name}: ${response.status} ${response.text}`);
          return;
        }
      }
    } finally {
      client.close();
    }
  };
  await Promise.all(
    origins.flatMap((origin, server) =>
      Array.from({ length: WRITERS_PER_PROCESS }, (_, index) => writer(origin, `s${server}w${index}`)),
    ),
  );
  return { answered, retried, failures, elapsedMs: Date.now() - started };
}

/** What a syncing client knows: every task by id, tombstones included. */
type Picture = Map<string, WireTask>;

/** Differences between the reader's picture and the database's listing, named by task id. */
function differences(picture: Picture, truth: readonly WireTask[]): string[] {
  const found: string[] = [];
  const byId = new Map(truth.map((task) => [task.id, task]));
  for (const [id, task] of byId) {
    const seen = picture.get(id);
    if (seen === undefined) found.push(`${id}: missing from the reader (rev ${task.rev})`);
    else if (JSON.stringify(seen) !== JSON.stringify(task))
      found.push(`${id}: reader has rev ${seen.rev}, database ${task.rev}`);
  }
  for (const id of picture.keys()) if (!byId.has(id)) found.push(`${id}: only the reader has it`);
  return found;
}

describeOnEachRoute(
  'two serve processes on one PostgreSQL database, 16 writers and a syncing reader',
  { timeout: E2E_TEST_TIMEOUT_MS },
  (route) => {
    let database: TestDatabase;
    let servers: ServeProcess[] = [];
    let readers: KeepAliveClient[] = [];
    let admin: pg.Client;
    let token: string;
    let accountId: number;
    const live = new LiveIds();
    /** The reader's picture of the account. */
    const picture: Picture = new Map();

    const auth = (): Record<string, string> => ({ authorization: `OAuth ${token}` });
    /**
     * Writes that make the run a test of concurrency at all. Fewer get through PgBouncer: each
     * statement takes one more hop, and the transactions of both processes take turns on its
     * two server connections.
     */
    const minimumWrites = route.pooled ? 50 : 100;

    beforeAll(async () => {
      database = await createTestDatabase();
      const [dirA, dirB] = await Promise.all([makeTempDir('pg-sync-a'), makeTempDir('pg-sync-b')]);
      const databaseUrl = route.url(database.url);
      servers = await Promise.all(
        [dirA, dirB].map((dataDir) => startServe({ dataDir, http: true, databaseUrl, databasePooled: route.pooled })),
      );
      token = await newAccount({ dataDir: dirA, databaseUrl, pooled: route.pooled }, USERNAME, ['--timezone', ZONE]);
      readers = servers.map((server) => new KeepAliveClient(server.origin));
      admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const account = await admin.query<{ id: string }>('SELECT id FROM accounts WHERE username = $1', [USERNAME]);
      accountId = Number(account.rows[0]?.id);
      const seed = await readers[0]?.request({
        path: '/v1/tasks',
        headers: auth(),
        body: Array.from({ length: SEED_TASKS }, (_, index) => ({ id: `seed-${index}`, title: `seed ${index}` })),
      });
      expect(seed?.status, seed?.text).toBe(200);
      for (let index = 0; index < SEED_TASKS; index++) live.add(`seed-${index}`);
    });

    afterAll(async () => {
      for (const reader of readers) reader.close();
      await admin?.end();
      await cleanUpProcesses();
      await database?.drop();
    });

    /** List answers refused with E503 (overload, with Retry-After) and asked again. */
    let readerRetries = 0;

    /** GET `path` alternately on the two processes, `turn` choosing which. */
    async function list(turn: number, path: string): Promise<ReturnType<typeof taskListSchema.parse>> {
      const reader = readers[turn % readers.length];
      if (reader === undefined) throw new Error('no reader');
      for (let attempt = 0; ; attempt++) {
        const response = await reader.request({ path, headers: auth() });
        const retryAfter = Number(response.headers['retry-after']);
        if (response.status === 503 && retryAfter > 0 && attempt < MAX_RETRIES) {
          readerRetries += 1;
          await sleep(retryAfter * 1000);
          continue;
        }
        return bodyOf(response, taskListSchema);
      }
    }

    /** Everything the account has, tombstones included: a fresh, cursor-less `updated_after`. */
    async function fullListing(turn: number): Promise<WireTask[]> {
      const all = await list(turn, '/v1/tasks?updated_after=0001-01-01');
      expect(all.has_more).toBe(false);
      return all.entries;
    }

    /** The tables themselves: every task's id → rev, and whether `rev` and `updated` grow together. */
    async function databaseState(): Promise<{
      revs: Map<string, number>;
      headRev: number;
      updatedFollowsRev: boolean;
    }> {
      const tasks = await admin.query<{ id: string; rev: string; updated: string }>(
        'SELECT id, rev, updated FROM tasks WHERE account_id = $1 ORDER BY rev',
        [accountId],
      );
      const head = await admin.query<{ rev: string }>('SELECT rev FROM accounts WHERE id = $1', [accountId]);
      let updatedFollowsRev = true;
      let previous = -Infinity;
      for (const row of tasks.rows) {
        if (Number(row.updated) <= previous) updatedFollowsRev = false;
        previous = Number(row.updated);
      }
      return {
        revs: new Map(tasks.rows.map((row) => [row.id, Number(row.rev)])),
        headRev: Number(head.rows[0]?.rev),
        updatedFollowsRev,
      };
    }

    /** The final checks both readers share: picture = HTTP listing (both processes) = tables. */
    async function expectPictureIsTheDatabase(): Promise<void> {
      const [fromA, fromB] = await Promise.all([fullListing(0), fullListing(1)]);
      expect(differences(picture, fromA)).toEqual([]);
      expect(differences(picture, fromB)).toEqual([]);
      const state = await databaseState();
      expect(new Map([...picture].map(([id, task]) => [id, task.rev]))).toEqual(state.revs);
      expect(state.updatedFollowsRev).toBe(true);
      expect(Math.max(...state.revs.values())).toBe(state.headRev);
    }

    it('a cursor reader paging through both processes sees every current change once, in rev order', async () => {
      // The starting point: everything so far (the seed), followed to the end of its cursor chain.
      picture.clear();
      readerRetries = 0;
      let cursor = '';
      let startRev = 0;
      for (let turn = 0; ; turn++) {
        const page = await list(
          turn,
          cursor === '' ? `/v1/tasks?limit=${PAGE_LIMIT}` : `/v1/tasks?cursor=${cursor}&limit=${PAGE_LIMIT}`,
        );
        for (const task of page.entries) {
          picture.set(task.id, task);
          startRev = Math.max(startRev, task.rev);
        }
        cursor = encodeURIComponent(page.cursor);
        if (!page.has_more) break;
      }
      expect(picture.size).toBe(SEED_TASKS);

      const anomalies: string[] = [];
      const seen = new Set<string>();
      const seenRevs = new Set<number>();
      let lastRev = startRev;
      let pages = 0;
      let changes = 0;
      const apply = (entries: readonly WireTask[]): void => {
        for (const task of entries) {
          const key = `${task.id}@${task.rev}`;
          if (seen.has(key)) anomalies.push(`repeated: ${key}`);
          if (task.rev <= lastRev) anomalies.push(`rev ${task.rev} after rev ${lastRev}`);
          seen.add(key);
          seenRevs.add(task.rev);
          lastRev = Math.max(lastRev, task.rev);
          picture.set(task.id, task);
          changes += 1;
        }
      };
      const syncOnce = async (): Promise<boolean> => {
        const page = await list(pages, `/v1/tasks?cursor=${cursor}&limit=${PAGE_LIMIT}`);
        pages += 1;
        apply(page.entries);
        cursor = encodeURIComponent(page.cursor);
        return page.has_more;
      };

      let writing = true;
      const writes = runWriters(
        servers.map((server) => server.origin),
        token,
        live,
        WRITE_MS,
      ).finally(() => (writing = false));
      while (writing) await syncOnce();
      const load = await writes;
      // The final sync: the chain continues to its end, has_more=false.
      while (await syncOnce());

      const state = await databaseState();
      const currentRevs = [...state.revs.values()].filter((rev) => rev > startRev);
      const unseenCurrent = currentRevs.filter((rev) => !seenRevs.has(rev));
      // A change seen is the task's current state or was superseded by a later change of it; a
      // task the database has at a lower rev than seen (or not at all) would be a phantom.
      const seenBeyondTheDatabase = [...seen].filter((key) => {
        const at = key.lastIndexOf('@');
        return (state.revs.get(key.slice(0, at)) ?? 0) < Number(key.slice(at + 1));
      });
      const figures = {
        writesPerSecond: Math.round((load.answered * 1000) / load.elapsedMs),
        writesAnswered200: load.answered,
        retriedE503: load.retried,
        readerRetriedE503: readerRetries,
        changesSynced: changes,
        pages,
        headRev: state.headRev,
        supersededBeforeSeen: state.headRev - startRev - changes,
        anomalies: anomalies.length + unseenCurrent.length + seenBeyondTheDatabase.length,
      };
      console.log('cursor sync under load', JSON.stringify(figures));

      expect(load.failures).toEqual([]);
      expect(anomalies).toEqual([]);
      expect(unseenCurrent).toEqual([]);
      expect(seenBeyondTheDatabase).toEqual([]);
      // Every rev handed out after the start is accounted for: seen, or superseded before the reader
      // got to it (revs are consecutive; a rolled-back write hands its numbers to the next one).
      expect(changes).toBeLessThanOrEqual(state.headRev - startRev);
      expect(load.answered).toBeGreaterThan(minimumWrites);
      await expectPictureIsTheDatabase();
      for (const server of servers) expect(server.child.exitCode).toBeNull();
    });

    it('an updated_after reader may see a change again within the second it asks from, but loses none', async () => {
      // The starting point: the whole state, tombstones included.
      picture.clear();
      readerRetries = 0;
      for (const task of await fullListing(0)) picture.set(task.id, task);
      expect(picture.size).toBeGreaterThan(0);
      let maxRev = 0;
      let since = '';
      for (const task of picture.values()) {
        if (task.rev > maxRev) [maxRev, since] = [task.rev, task.updated];
      }

      const anomalies: string[] = [];
      let answers = 0;
      let changes = 0;
      let repeats = 0;
      /**
       * One `updated_after=<the updated of the newest change seen>` answer. The wire shows seconds,
       * `updated` inside has microseconds, and the filter is strictly after the second asked for:
       * the changes of that same second come again (told apart by id and rev), while every change
       * not yet seen has a later `updated` (stamps grow in commit order), so it is not lost.
       */
      const syncOnce = async (): Promise<void> => {
        const asked = since;
        const answer = await list(answers, `/v1/tasks?updated_after=${encodeURIComponent(asked)}`);
        answers += 1;
        expect(answer.has_more).toBe(false);
        const before = maxRev;
        let previousRev = 0;
        for (const task of answer.entries) {
          if (task.rev <= previousRev) anomalies.push(`answer out of rev order: ${task.rev} after ${previousRev}`);
          previousRev = task.rev;
          if (task.updated < asked)
            anomalies.push(`${task.id}@${task.rev} updated ${task.updated}, asked after ${asked}`);
          const known = picture.get(task.id)?.rev ?? 0;
          if (task.rev < known) {
            anomalies.push(`${task.id}: rev ${task.rev} after the reader had rev ${known}`);
          } else if (task.rev === known) {
            repeats += 1;
            // Only the second asked from may come again.
            if (task.updated !== asked)
              anomalies.push(`${task.id}@${task.rev} (${task.updated}) repeated after ${asked}`);
          } else {
            // A change not seen before must be newer than everything seen before: else one like it
            // could have been skipped.
            if (task.rev <= before) anomalies.push(`${task.id}@${task.rev} appeared after rev ${before} was seen`);
            picture.set(task.id, task);
            changes += 1;
            if (task.rev > maxRev) [maxRev, since] = [task.rev, task.updated];
          }
        }
      };

      let writing = true;
      const writes = runWriters(
        servers.map((server) => server.origin),
        token,
        live,
        WRITE_MS,
      ).finally(() => (writing = false));
      while (writing) {
        await syncOnce();
        // A polling client, not a spinning one: each answer repeats the current second.
        await sleep(20);
      }
      const load = await writes;
      await syncOnce();

      const figures = {
        writesPerSecond: Math.round((load.answered * 1000) / load.elapsedMs),
        writesAnswered200: load.answered,
        retriedE503: load.retried,
        readerRetriedE503: readerRetries,
        changesSynced: changes,
        answers,
        repeatedWithinTheSecond: repeats,
        anomalies: anomalies.length,
      };
      console.log('updated_after sync under load', JSON.stringify(figures));

      expect(load.failures).toEqual([]);
      expect(anomalies).toEqual([]);
      expect(load.answered).toBeGreaterThan(minimumWrites);
      await expectPictureIsTheDatabase();
      for (const server of servers) expect(server.child.exitCode).toBeNull();
    });
  },
);
