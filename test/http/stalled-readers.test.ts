/**
 * Issue #16, 3: clients that stop reading a large list, over a real socket on both engines. Each
 * stream holds a snapshot (on PostgreSQL a pooled connection); ten of them once took the whole
 * pool, and nothing ever ended them. Streams now need a slot (per process and per account, E503
 * past it), and one whose client takes nothing for the idle deadline is cut off: its connection
 * closes mid-answer and its snapshot is released. Meanwhile another account is answered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startHarness, type Harness, type User } from '../support/harness.js';
import { oauth, request } from '../e2e/support/http.js';
import { stalledReader } from '../reliability/support/stalled-reader.js';

const IDLE_MS = 1500;
const MAX_STREAMS_PER_ACCOUNT = 2;
const STALLED = 10;
/** About 30 MB rendered (`&` is sent as `&amp;`): more than the socket buffers of both ends hold. */
const LARGE_TASKS = 1600;
const NOTES = '&'.repeat(4000);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(ENGINES)('clients that stop reading a large list, on %s', (engine) => {
  let harness: Harness | undefined;
  let attacker: User | undefined;
  let victim: User | undefined;
  let origin = '';
  let port = 0;

  beforeAll(async () => {
    harness = await startHarness(engine, {
      app: {
        // Shedding is not what this test is about: its E503s would blur the streams' own.
        loadLimits: { maxInFlight: 1024, maxEventLoopDelayMs: 30_000, maxTurnMs: 30_000 },
        streamLimits: {
          maxStreams: 4,
          maxStreamsPerAccount: MAX_STREAMS_PER_ACCOUNT,
          idleMs: IDLE_MS,
          lifetimeMs: 60_000,
        },
      },
    });
    attacker = await harness.newUser();
    victim = await harness.newUser();
    await harness.app.listen({ port: 0, host: '127.0.0.1' });
    const address = harness.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    port = address.port;
    origin = `http://127.0.0.1:${port}`;
    for (let first = 0; first < LARGE_TASKS; first += 200) {
      const body = Array.from({ length: 200 }, (_unused, index) => ({ title: `large ${first + index}`, notes: NOTES }));
      const answer = await request(origin, { path: '/v1/tasks', headers: oauth(attacker.token), body });
      expect(answer.status, answer.text.slice(0, 200)).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it(
    'answers others meanwhile, refuses streams past the cap, and cuts the stalled ones off',
    { timeout: 60_000 },
    async () => {
      const readToken = attacker?.readToken ?? '';
      const readers = Array.from({ length: STALLED }, () => stalledReader(port, '/v1/tasks', readToken));
      const statuses = await Promise.all(readers.map((reader) => reader.status));
      // Past the account's streams, a fast E503: the snapshot is not kept for a client that waits.
      expect(statuses.filter((status) => status === 200)).toHaveLength(MAX_STREAMS_PER_ACCOUNT);
      expect(statuses.filter((status) => status === 503)).toHaveLength(STALLED - MAX_STREAMS_PER_ACCOUNT);

      // The other account is answered while the streams stall (on PostgreSQL they once held the pool).
      for (let round = 0; round < 20; round += 1) {
        const answer = await request(origin, { path: '/v1/tasks?limit=1', headers: oauth(victim?.token ?? '') });
        expect(answer.status, answer.text).toBe(200);
      }
      const written = await request(origin, {
        path: '/v1/tasks',
        headers: oauth(victim?.token ?? ''),
        body: { title: 'written while they stall' },
      });
      expect(written.status).toBe(200);

      // Past the idle deadline the streams are ended: their connections close with the answer cut
      // (no last chunk). Without the deadline they would deliver the whole answer now.
      await sleep(IDLE_MS * 2);
      const ends = await Promise.all(
        readers.map((reader, index) => (statuses[index] === 200 ? reader.finish(10_000) : null)),
      );
      for (const end of ends) {
        if (end === null) continue;
        expect(end.closed).toBe(true);
        expect(end.text.endsWith('0\r\n\r\n')).toBe(false);
      }
      for (const [index, reader] of readers.entries()) if (statuses[index] !== 200) await reader.finish(0);

      // Their slots are free again: the account lists its whole answer.
      const whole = await request(origin, { path: '/v1/tasks', headers: oauth(readToken), timeoutMs: 30_000 });
      expect(whole.status).toBe(200);
      expect((JSON.parse(whole.text) as { entries: unknown[] }).entries).toHaveLength(LARGE_TASKS);
    },
  );
});
