/**
 * The SDK (`task-service/client`) against the real `task-service serve` over a socket: the
 * escaping round trip, dates in a DST zone, a sync across has_more pages with writes in between,
 * recovery from E008, and retries that apply a write once.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatWireDate, parseWireDate, TaskServiceClient, type Task } from '../../src/client/index.js';
import { newAccount } from './support/accounts.js';
import { LossyProxy } from './support/lossy-proxy.js';
import {
  cleanUpProcesses,
  E2E_TEST_TIMEOUT_MS,
  makeTempDir,
  REPO_ROOT,
  runNode,
  startServe,
} from './support/processes.js';

const SPECIALS = `Tom & Jerry <b>'quoted'</b> "double"`;
const SPECIALS_ESCAPED = 'Tom &amp; Jerry &lt;b&gt;&#39;quoted&#39;&lt;/b&gt; &quot;double&quot;';

async function startAccount(options: { timezone?: string; args?: string[] } = {}) {
  const dataDir = await makeTempDir('sdk');
  const server = await startServe({
    dataDir,
    http: true,
    ...(options.args === undefined ? {} : { args: options.args }),
  });
  const token = await newAccount(
    { dataDir },
    'sdk',
    options.timezone === undefined ? [] : ['--timezone', options.timezone],
  );
  return { dataDir, server, token };
}

/** The answer's text as the service wrote it, for checking what is on the wire. */
async function rawGet(origin: string, token: string, pathAndQuery: string): Promise<string> {
  const response = await fetch(`${origin}${pathAndQuery}`, { headers: { authorization: `OAuth ${token}` } });
  return response.text();
}

describe('the SDK against a real serve process', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  it('is the package export task-service/client, and loads nothing of the server', async () => {
    const dir = path.join(REPO_ROOT, 'dist', 'src', 'client');
    for (const file of (await readdir(dir)).filter((name) => name.endsWith('.js'))) {
      const source = await readFile(path.join(dir, file), 'utf8');
      const specifiers = [...source.matchAll(/(?:import|export)[^'";]*?from\s*'([^']+)'|import\('([^']+)'\)/g)].map(
        (match) => match[1] ?? match[2],
      );
      for (const specifier of specifiers)
        expect(specifier, `${file} imports ${specifier}`).toMatch(/^\.\/[a-z-]+\.js$/);
    }
    const loaded = await runNode([
      '--input-type=module',
      '-e',
      "const m = await import('task-service/client'); console.log(typeof m.TaskServiceClient, m.unescapeHtml('&lt;&amp;&gt;'));",
    ]);
    expect(loaded.stderr).toBe('');
    expect(loaded.stdout).toBe('function <&>\n');
  });

  it('round-trips all five escaped characters: unescaped once on the way in, raw on the way out', async () => {
    const { server, token } = await startAccount();
    const client = new TaskServiceClient({ baseUrl: server.origin, token });
    const created = await client.tasks.save({
      title: SPECIALS,
      notes: `notes ${SPECIALS}`,
      tags: [SPECIALS],
      project: SPECIALS,
    });
    expect(created).toMatchObject({ title: SPECIALS, notes: `notes ${SPECIALS}`, tags: [SPECIALS], project: SPECIALS });
    // On the wire it is escaped exactly once.
    expect(await rawGet(server.origin, token, `/v1/tasks/${encodeURIComponent(created.id)}`)).toContain(
      `"title":"${SPECIALS_ESCAPED}"`,
    );
    // Sent back whole, the text stays as typed: never escaped twice.
    const again = await client.tasks.save({ ...created, priority: 2 });
    expect(again.title).toBe(SPECIALS);
    expect(again.notes).toBe(`notes ${SPECIALS}`);
    expect((await client.tasks.get(created.id)).title).toBe(SPECIALS);
    const [project] = await client.projects.all();
    expect(project?.name).toBe(SPECIALS);
    // An entity typed as text stays that text.
    const literal = await client.tasks.save({ title: 'a &amp; b &lt;' });
    expect(literal.title).toBe('a &amp; b &lt;');
  });

  it('reads and writes dates in a DST zone (Europe/Berlin) as the instants they are', async () => {
    const { server, token } = await startAccount({ timezone: 'Europe/Berlin' });
    const client = new TaskServiceClient({ baseUrl: server.origin, token });
    expect((await client.settings()).timezone).toBe('Europe/Berlin');
    expect(client.timeZone).toBe('Europe/Berlin');
    // Either side of the switch to summer time on 2026-03-29 at 01:00 UTC.
    const before = new Date('2026-03-29T00:30:00Z');
    const after = new Date('2026-03-29T01:30:00Z');
    expect(formatWireDate(before, 'Europe/Berlin')).toBe('2026-03-29 01:30:00 +0100');
    expect(formatWireDate(after, 'Europe/Berlin')).toBe('2026-03-29 03:30:00 +0200');
    const task = await client.tasks.save({ title: 'across the switch', start_at: before, end_at: after });
    expect(task.start_at?.toISOString()).toBe(before.toISOString());
    expect(task.end_at?.toISOString()).toBe(after.toISOString());
    const wire = await rawGet(server.origin, token, `/v1/tasks/${encodeURIComponent(task.id)}`);
    expect(wire).toContain('"start_at":"2026-03-29 01:30:00 +0100","end_at":"2026-03-29 03:30:00 +0200"');
    // A calendar date is that date at midnight in the account's zone: the day summer time ends.
    const allDay = await client.tasks.save({ title: 'all day', all_day: true, start_at: '2026-10-25' });
    expect(allDay.start_at?.toISOString()).toBe('2026-10-24T22:00:00.000Z');
    expect(task.created).toBeInstanceOf(Date);
    expect(Math.abs((task.created.getTime() - Date.now()) / 1000)).toBeLessThan(60);
    expect(parseWireDate('2026-11-21 09:30:00 +0800').toISOString()).toBe('2026-11-21T01:30:00.000Z');
  });

  it('syncs across has_more pages with writes in between, then only what changed', async () => {
    const { server, token } = await startAccount();
    const client = new TaskServiceClient({ baseUrl: server.origin, token });
    const first = await client.tasks.saveMany([1, 2, 3, 4, 5].map((n) => ({ title: `task ${n}` })));
    const local = new Map<string, Task>();
    let cursor = '';
    let pages = 0;
    for await (const page of client.sync('tasks', undefined, 2)) {
      pages += 1;
      expect(page.full).toBe(true);
      for (const task of page.entries) local.set(task.id, task);
      cursor = page.cursor;
      if (pages === 1) {
        // Written while the sync is under way: a later page carries them.
        await client.tasks.save({ title: 'task 6' });
        await client.tasks.save({ id: first[0]?.id ?? '', title: 'task 1, renamed' });
      }
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    const server_side = await client.tasks.all();
    expect([...local.values()].map((task) => [task.id, task.title, task.rev]).sort()).toEqual(
      server_side.map((task) => [task.id, task.title, task.rev]).sort(),
    );
    expect(local.get(first[0]?.id ?? '')?.title).toBe('task 1, renamed');

    // From the cursor: nothing, then exactly what changed, a deletion included.
    const quiet = [];
    for await (const page of client.sync('tasks', cursor)) quiet.push(page);
    expect(quiet).toEqual([{ entries: [], cursor, hasMore: false, full: false, restarted: false }]);
    await client.tasks.save({ id: first[1]?.id ?? '', deleted: new Date() });
    const changes: Task[] = [];
    for await (const page of client.sync('tasks', cursor)) changes.push(...page.entries);
    expect(changes.map((task) => [task.id, task.deleted instanceof Date])).toEqual([[first[1]?.id, true]]);
  });

  it('follows changes with sync(kind, cursor, { wait }): held until a change, which it brings', async () => {
    const { server, token } = await startAccount();
    const client = new TaskServiceClient({ baseUrl: server.origin, token });
    const elsewhere = new TaskServiceClient({ baseUrl: server.origin, token });
    const { cursor } = await client.tasks.list();
    const pages = (async () => {
      const seen = [];
      for await (const page of client.sync('tasks', cursor, { wait: 30 })) seen.push(page);
      return seen;
    })();
    const made = await elsewhere.tasks.save({ title: 'made while it waited' });
    const [page, ...more] = await pages;
    expect(more).toEqual([]);
    expect(page?.entries.map((task) => task.id)).toEqual([made.id]);
    // Nothing after the last cursor: after the wait, the empty page with the same cursor.
    const quiet = [];
    for await (const next of client.sync('tasks', page?.cursor, { wait: 1 })) quiet.push(next);
    expect(quiet).toEqual([{ entries: [], cursor: page?.cursor, hasMore: false, full: false, restarted: false }]);
  });

  it('starts over with a full listing on E008, and says so', async () => {
    const { dataDir, server, token } = await startAccount();
    let client = new TaskServiceClient({ baseUrl: server.origin, token });
    const { cursor: oldCursor } = await client.tasks.list();
    const keep = await client.tasks.save({ title: 'keep' });
    const gone = await client.tasks.save({ title: 'gone' });
    await client.tasks.save({ id: gone.id, deleted: new Date() });
    await server.stop();
    // Retention 0: the restarted server purges the tombstone at once, so the old cursor expired.
    const again = await startServe({ dataDir, http: true, args: ['--retention', '0'] });
    client = new TaskServiceClient({ baseUrl: again.origin, token });
    await expect(client.tasks.list({ cursor: oldCursor })).rejects.toMatchObject({
      retcode: 'E008',
      status: 400,
      retmsg: 'cursor expired',
    });
    const pages = [];
    for await (const page of client.sync('tasks', oldCursor)) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toMatchObject({ full: true, restarted: true, hasMore: false });
    expect(pages[0]?.entries.map((task) => task.id)).toEqual([keep.id]);
  });

  it('retries a write whose answer was lost, with its Idempotency-Key: applied once', async () => {
    const { server, token } = await startAccount();
    const proxy = await LossyProxy.start(server.port);
    try {
      const retries: string[] = [];
      const client = new TaskServiceClient({
        baseUrl: proxy.origin,
        token,
        retry: { baseDelayMs: 50 },
        onRetry: (event) => retries.push(event.reason),
      });
      proxy.loseNextAnswer();
      const task = await client.tasks.save({ title: 'exactly once' });
      expect(proxy.lost).toBe(1);
      expect(retries).toEqual(['network error']);
      const all = await client.tasks.all();
      expect(all.map((entry) => entry.id)).toEqual([task.id]);
    } finally {
      await proxy.close();
    }
  });

  it("sends the caller's own Idempotency-Key: the same write sent again later is applied once", async () => {
    const { server, token } = await startAccount();
    const proxy = await LossyProxy.start(server.port);
    try {
      // No retries here: the caller (a queue kept across reloads) sends the write again itself.
      const client = new TaskServiceClient({ baseUrl: proxy.origin, token, retry: { retries: 0 } });
      proxy.loseNextAnswer();
      const lost = await client.tasks
        .save({ title: 'queued once' }, { idempotencyKey: 'queued-change-1' })
        .catch((caught: unknown) => caught);
      expect(lost).toBeInstanceOf(Error);
      const task = await client.tasks.save({ title: 'queued once' }, { idempotencyKey: 'queued-change-1' });
      expect((await client.tasks.all()).map((entry) => entry.id)).toEqual([task.id]);
    } finally {
      await proxy.close();
    }
  });

  it('waits what Retry-After asks after E503, and raises typed errors it may not retry', async () => {
    const { server, token } = await startAccount({ args: ['--rate-limit', '1/s'] });
    const retries: { reason: string; attempt: number; delayMs: number }[] = [];
    const client = new TaskServiceClient({ baseUrl: server.origin, token, onRetry: (event) => retries.push(event) });
    await client.tasks.save({ title: 'one' });
    const startedAt = Date.now();
    await client.tasks.save({ title: 'two' });
    expect(retries).toEqual([{ reason: 'E503', attempt: 1, delayMs: 1000 }]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(900);
    expect((await client.tasks.all()).map((task) => task.title).sort()).toEqual(['one', 'two']);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const error = await client.tasks.get('no-such-task').catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'TaskServiceError',
      retcode: 'E007',
      status: 400,
      retmsg: 'not found: task no-such-task',
    });
  });
});
