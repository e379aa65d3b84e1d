/**
 * Waiting for changes (API.md 4.6): a list call with `cursor` and `wait` is held while nothing
 * changed after the cursor, answered by the first change of its account and kind, or empty by a
 * change of another kind of its account, else at the end of the wait (or on shutdown) with the
 * ordinary empty answer and the same cursor.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ENGINES, startHarness, type Harness } from '../support/harness.js';
import { Client, expectError, ok, taskList, unsupportedParameter, invalidParameter } from './support/api.js';
import { useHarness } from './support/setup.js';

/** Resolves once `count` requests wait in the harness's process. */
async function waitingReaches(harness: Harness, count: number): Promise<void> {
  while (harness.services.waits.waiting !== count) await sleep(5);
}

describe.each(ENGINES)('waiting for changes on %s', (engine) => {
  const suite = useHarness(engine);

  it('holds an empty answer until a task changes, then answers with it', async () => {
    const { client } = await suite().newClient();
    const { cursor } = await client.listTasks();
    const waiting = client.get(`/v1/tasks?cursor=${cursor}&wait=30`);
    await waitingReaches(suite().harness, 1);
    const created = await client.createTask({ title: 'wakes the waiter' });
    const answer = ok(await waiting, taskList);
    expect(answer.entries).toEqual([created]);
    expect(answer.cursor).not.toBe(cursor);
    expect(suite().harness.services.waits.waiting).toBe(0);
  });

  it('answers at once when something changed after the cursor already', async () => {
    const { client } = await suite().newClient();
    const { cursor } = await client.listTasks();
    const created = await client.createTask({ title: 'already there' });
    const answer = ok(await client.get(`/v1/tasks?cursor=${cursor}&wait=60`), taskList);
    expect(answer.entries).toEqual([created]);
  });

  it('is not woken by another account, and ends empty with the same cursor', async () => {
    const { client } = await suite().newClient();
    const { client: other } = await suite().newClient();
    const { cursor } = await client.listTasks();
    const waiting = client.get(`/v1/tasks?cursor=${cursor}&wait=1`);
    await waitingReaches(suite().harness, 1);
    await other.createTask({ title: 'not this account' });
    await sleep(100);
    expect(suite().harness.services.waits.waiting).toBe(1);
    const answer = ok(await waiting, taskList);
    expect(answer).toEqual({ entries: [], cursor, has_more: false });
  });

  it('is answered by a change of another kind of its account, empty with the same cursor', async () => {
    const { client } = await suite().newClient();
    const { cursor } = await client.listTasks();
    const waiting = client.get(`/v1/tasks?cursor=${cursor}&wait=60`);
    await waitingReaches(suite().harness, 1);
    await client.createProject({ name: 'not a task' });
    // Long before the 60 s: the one wait tells the client that something of the account changed.
    const answer = ok(await waiting, taskList);
    expect(answer).toEqual({ entries: [], cursor, has_more: false });
    expect(suite().harness.services.waits.waiting).toBe(0);
  });

  it('refuses wait without a cursor (E003) and outside 1-60 seconds (E004), before waiting', async () => {
    const { client } = await suite().newClient();
    const { cursor } = await client.listTasks();
    expectError(await client.get('/v1/tasks?wait=5'), {
      status: 400,
      retcode: 'E003',
      retmsg: unsupportedParameter('wait'),
      reqdata: 'wait=5',
    });
    expectError(await client.get('/v1/tasks?updated_after=2026-01-01&wait=5'), {
      status: 400,
      retcode: 'E003',
      retmsg: unsupportedParameter('wait'),
    });
    for (const wait of ['0', '61', '1.5', 'soon', '']) {
      expectError(await client.get(`/v1/tasks?cursor=${cursor}&wait=${wait}`), {
        status: 400,
        retcode: 'E004',
        retmsg: invalidParameter('wait'),
      });
    }
    expect(suite().harness.services.waits.waiting).toBe(0);
  });
});

describe.each(ENGINES)('shutting down with requests waiting on %s', (engine) => {
  it('answers every waiting request at once, empty with the same cursor', async () => {
    const harness = await startHarness(engine);
    try {
      const user = await harness.newUser();
      const client = new Client(harness.app, user.token);
      const { cursor } = await client.listTasks();
      const waiting = [1, 2, 3].map(() => client.get(`/v1/tasks?cursor=${cursor}&wait=60`));
      await waitingReaches(harness, 3);
      const closing = harness.app.close();
      for (const answer of await Promise.all(waiting)) {
        expect(ok(answer, taskList)).toEqual({ entries: [], cursor, has_more: false });
      }
      await closing;
    } finally {
      await harness.close();
    }
  });
});
