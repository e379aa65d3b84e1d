import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TaskServiceClient } from '../../src/client/index.js';
import { newAccount } from './support/accounts.js';
import { oauth, startRequest, type HttpResponse, type PendingRequest } from './support/http.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  parseLogLines,
  startServe,
  waitFor,
  type ServeProcess,
} from './support/processes.js';
import { bodyOf, expectError, taskArraySchema } from './support/wire.js';

/** Array POSTs sent whole just before the signal. */
const BURST = 50;
/** Array POSTs the server has begun to read when the signal comes, finished only after it. */
const HELD = 10;
const TASKS_PER_REQUEST = 200;
const STOPPING = 'stopping: finishing requests in flight';

function taskId(requestIndex: number, taskIndex: number): string {
  return `r${requestIndex}-t${taskIndex}`;
}

function postTasks(server: ServeProcess, token: string, r: number, hold?: Promise<void>): PendingRequest {
  return startRequest(server.origin, {
    path: '/v1/tasks',
    headers: oauth(token),
    body: Array.from({ length: TASKS_PER_REQUEST }, (_unused, t) => ({
      id: taskId(r, t),
      title: `task ${t} of request ${r}`,
      notes: 'x'.repeat(200),
      tags: ['load', `r${r}`],
    })),
    ...(hold === undefined ? {} : { hold }),
  });
}

/**
 * Tries to connect until the port refuses (or `timeoutMs` passes); resolves with the last result.
 * The "stopping" line is written as the close begins: on a busy machine the listening socket
 * closes a moment after it, so the port is watched, not looked at once.
 */
async function connectUntilRefused(port: number, timeoutMs = 5000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await tryConnect(port);
    if (result === 'ECONNREFUSED' || Date.now() > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves with the error code of a TCP connect to 127.0.0.1:`port` ('connected' if it worked). */
function tryConnect(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('SIGTERM while requests are in flight', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  it('refuses new connections, answers what it took in, exits 0, and keeps every task it answered', async () => {
    const dataDir = await makeTempDir('sigterm');
    const token = await newAccount({ dataDir }, 'busy');
    const server = await startServe({ dataDir, http: true });

    // Some requests are under way on the server (headers taken, half the body read)…
    let release: () => void = () => undefined;
    const hold = new Promise<void>((resolve) => (release = resolve));
    const held = Array.from({ length: HELD }, (_, h) => postTasks(server, token, BURST + h, hold));
    await Promise.all(held.map((one) => one.sent));
    // …and a burst is sent whole, then the signal right after.
    const burst = Array.from({ length: BURST }, (_, r) => postTasks(server, token, r));
    const settled = Promise.allSettled([...burst, ...held].map((one) => one.response));
    await Promise.all(burst.map((one) => one.sent));
    expect(server.child.kill('SIGTERM')).toBe(true);

    // While it drains (the held requests keep it alive), it takes no new connection.
    await waitFor(() => server.stdout().includes(`"msg":"${STOPPING}"`));
    expect(await connectUntilRefused(server.port)).toBe('ECONNREFUSED');
    expect(server.child.exitCode).toBeNull();
    release();

    const outcomes = await settled;
    const exit = await server.exited;
    expect(exit, server.stderr()).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toBe('');
    expect(await tryConnect(server.port)).toBe('ECONNREFUSED');

    // Every answer is a complete 200 (or the contract's overload answer, E503 with Retry-After,
    // which changes nothing). A burst request may get no answer at all: one the server had not
    // yet accepted when it closed its port is reset by the kernel. The held ones were under way
    // and must be answered.
    const answered = new Set<number>();
    const shed = new Set<number>();
    outcomes.forEach((outcome, r) => {
      if (outcome.status === 'rejected') {
        expect(r, `held request ${r} was not answered: ${String(outcome.reason)}`).toBeLessThan(BURST);
        expect(String(outcome.reason)).toMatch(/ECONNRESET|EPIPE|socket hang up/);
        return;
      }
      const response: HttpResponse = outcome.value;
      if (response.status === 503) {
        expectError(response, 503, 'E503');
        expect(response.headers['retry-after']).toBeDefined();
        shed.add(r);
        return;
      }
      const body = bodyOf(response, taskArraySchema);
      expect(body.entries.map((task) => task.id)).toEqual(
        Array.from({ length: TASKS_PER_REQUEST }, (_, t) => taskId(r, t)),
      );
      answered.add(r);
    });
    expect(answered.size + shed.size).toBeGreaterThanOrEqual(HELD);
    const log = parseLogLines(server.stdout()).map((line) => line.msg);
    expect(log.lastIndexOf('response')).toBeGreaterThan(log.indexOf(STOPPING));
    expect(log.at(-1)).toBe('stopped');

    // After a restart, every answered task is there, and every request is all or nothing.
    const restarted = await startServe({ dataDir, http: true });
    const listed = await new TaskServiceClient({ baseUrl: restarted.origin, token }).tasks.all();
    const stored = new Set(listed.map((task) => task.id));
    for (let r = 0; r < BURST + HELD; r += 1) {
      const present = Array.from({ length: TASKS_PER_REQUEST }, (_, t) => stored.has(taskId(r, t)));
      if (answered.has(r)) expect(present.every(Boolean), `request ${r} was answered 200`).toBe(true);
      else if (shed.has(r)) expect(present.some(Boolean), `request ${r} was answered E503`).toBe(false);
      else expect(new Set(present).size, `request ${r} applied in part`).toBe(1);
    }
    console.info(
      `SIGTERM e2e: ${answered.size} of ${BURST + HELD} requests answered 200, ${shed.size} E503, ` +
        `${stored.size} tasks stored`,
    );
  });
});
