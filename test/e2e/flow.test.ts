import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newAccount } from './support/accounts.js';
import { oauth, request } from './support/http.js';
import { cleanUpProcesses, E2E_TEST_TIMEOUT_MS, makeTempDir, startServe } from './support/processes.js';
import { bodyOf, expectError, taskArraySchema, taskListSchema, taskSchema } from './support/wire.js';

/** A client-made id as the original clients make them (base64 of 16 random bytes). */
const CLIENT_ID = 'Jd1L1v0nQ0ypG4m0S8q4xg==';

describe('the curl walkthrough against a real serve process', { timeout: E2E_TEST_TIMEOUT_MS }, () => {
  afterEach(async () => {
    await cleanUpProcesses();
  });

  it('create, list, sync, complete by posting the task back, delete by setting deleted', async () => {
    const dataDir = await makeTempDir('flow');
    const server = await startServe({ dataDir, http: true });
    const token = await newAccount({ dataDir }, 'walker');
    const auth = oauth(token);

    const health = await request(server.origin, { path: '/healthz' });
    expect(health.status).toBe(200);
    expect(health.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(health.text).toBe('{"status":"ok"}');
    expectError(await request(server.origin, { path: '/v1/tasks' }), 401, 'E401');

    // Create with the client's own id.
    const created = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: { id: CLIENT_ID, title: 'Buy milk & eggs', notes: '2 litres', tags: ['shop'], project: 'Home' },
      }),
      taskSchema,
    );
    expect(created).toMatchObject({
      id: CLIENT_ID,
      title: 'Buy milk &amp; eggs',
      notes: '2 litres',
      attribute: 'inbox',
      completed: null,
      deleted: null,
      tags: ['shop'],
      project: 'Home',
    });

    // List, then sync from the cursor: nothing new yet.
    const first = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
    expect(first.has_more).toBe(false);
    expect(first.entries).toEqual([created]);
    const quiet = bodyOf(
      await request(server.origin, { path: `/v1/tasks?cursor=${encodeURIComponent(first.cursor)}`, headers: auth }),
      taskListSchema,
    );
    expect(quiet.entries).toEqual([]);

    // Complete it by posting the whole task back (escaped text unescaped, as clients do).
    const listed = first.entries[0];
    if (listed === undefined) throw new Error('the list lost the task');
    const completedAt = '2026-03-01 09:30:00 +0000';
    const completed = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: { ...listed, title: 'Buy milk & eggs', completed: completedAt },
      }),
      taskSchema,
    );
    expect(completed.id).toBe(CLIENT_ID);
    expect(completed.completed).toBe(completedAt);
    expect(completed.title).toBe('Buy milk &amp; eggs');
    expect(completed.rev).toBeGreaterThan(created.rev);

    const synced = bodyOf(
      await request(server.origin, { path: `/v1/tasks?cursor=${encodeURIComponent(first.cursor)}`, headers: auth }),
      taskListSchema,
    );
    expect(synced.entries).toEqual([completed]);

    // Delete by setting `deleted`: gone from a plain list, reported by a sync, still readable by id.
    const deletedAt = '2026-03-02 08:00:00 +0000';
    const deleted = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: { ...completed, title: 'Buy milk & eggs', deleted: deletedAt },
      }),
      taskSchema,
    );
    expect(deleted.deleted).toBe(deletedAt);
    expect(deleted.completed).toBe(completedAt);

    const plain = bodyOf(await request(server.origin, { path: '/v1/tasks', headers: auth }), taskListSchema);
    expect(plain.entries).toEqual([]);
    const learned = bodyOf(
      await request(server.origin, { path: `/v1/tasks?cursor=${encodeURIComponent(synced.cursor)}`, headers: auth }),
      taskListSchema,
    );
    expect(learned.entries).toEqual([deleted]);
    const one = bodyOf(
      await request(server.origin, { path: `/v1/tasks/${encodeURIComponent(CLIENT_ID)}`, headers: auth }),
      taskSchema,
    );
    expect(one).toEqual(deleted);
    const raw = bodyOf(await request(server.origin, { path: `/v1/tasks/${CLIENT_ID}`, headers: auth }), taskSchema);
    expect(raw).toEqual(deleted);
  });

  it('--maintenance answers E502 on /v1 paths and still answers /healthz', async () => {
    const dataDir = await makeTempDir('maintenance');
    const token = await newAccount({ dataDir }, 'waiting');
    const server = await startServe({ dataDir, http: true, args: ['--maintenance'] });

    const list = await request(server.origin, { path: '/v1/tasks', headers: oauth(token) });
    const error = expectError(list, 502, 'E502');
    expect(error.retmsg).toBe('the service is being upgraded');
    expectError(
      await request(server.origin, { path: '/v1/tasks', headers: oauth(token), body: { title: 'later' } }),
      502,
      'E502',
    );
    expectError(await request(server.origin, { path: '/v1/settings' }), 502, 'E502');
    const health = await request(server.origin, { path: '/healthz' });
    expect(health.status).toBe(200);
    expect(health.text).toBe('{"status":"ok"}');
  });

  it('large lists stream whole over the socket, plain and gzip, and page by cursor', async () => {
    const dataDir = await makeTempDir('large');
    const server = await startServe({ dataDir, http: true });
    const auth = oauth(await newAccount({ dataDir }, 'hoarder'));
    const count = 800;
    const posted = bodyOf(
      await request(server.origin, {
        path: '/v1/tasks',
        headers: auth,
        body: Array.from({ length: count }, (_, i) => ({ title: `task ${i}`, notes: 'n'.repeat(500) })),
      }),
      taskArraySchema,
    );
    const ids = posted.entries.map((task) => task.id);
    expect(ids).toHaveLength(count);

    // Over 256 KiB of JSON: the list is streamed from its snapshot.
    const plain = await request(server.origin, { path: '/v1/tasks', headers: auth });
    expect(plain.text.length).toBeGreaterThan(256 * 1024);
    expect(bodyOf(plain, taskListSchema).entries.map((task) => task.id)).toEqual(ids);
    const gzipped = await request(server.origin, {
      path: '/v1/tasks',
      headers: { ...auth, 'accept-encoding': 'gzip' },
    });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(bodyOf(gzipped, taskListSchema).entries.map((task) => task.id)).toEqual(ids);

    const paged: string[] = [];
    let query = 'limit=300';
    for (;;) {
      const page = bodyOf(await request(server.origin, { path: `/v1/tasks?${query}`, headers: auth }), taskListSchema);
      paged.push(...page.entries.map((task) => task.id));
      if (!page.has_more) break;
      query = `limit=300&cursor=${encodeURIComponent(page.cursor)}`;
    }
    expect(paged).toEqual(ids);
  });

  it('takes its settings from the environment, with ./data as the default data folder', async () => {
    const workDir = await makeTempDir('env');
    const token = await newAccount({ dataDir: path.join(workDir, 'data') }, 'envuser');
    const server = await startServe({ dataDir: workDir, http: true, viaEnvironment: true });
    expect(server.origin.startsWith('http://')).toBe(true);
    bodyOf(await request(server.origin, { path: '/v1/tasks', headers: oauth(token) }), taskListSchema);
    expect(existsSync(path.join(workDir, 'data', 'tasks.sqlite'))).toBe(true);
  });
});
