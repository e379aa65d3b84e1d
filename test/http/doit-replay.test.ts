/**
 * A replay of what the original Doit.im v1 clients do, step by step: list with
 * `Authorization: OAuth <token>` reading `entries`, create with a client-made id, fetch it by its
 * URL-encoded and raw id, complete it by POSTing the whole task back with its text unescaped,
 * delete it by setting `deleted`, and learn of the deletion from a later incremental sync.
 */
import { describe, expect, it } from 'vitest';
import { call, ENGINES } from '../support/harness.js';
import { expectError, unescapeAll, type WireTask } from './support/api.js';
import { useHarness } from './support/setup.js';

const CLIENT_ID = 'Jd1L1v0nQ0ypG4m0S8q4xg==';

/** What an old client does with a JSON answer: parse it and read the fields it knows. */
function parse(text: string): unknown {
  return JSON.parse(text) as unknown;
}

function entriesOf(value: unknown): Record<string, unknown>[] {
  if (typeof value !== 'object' || value === null || !('entries' in value) || !Array.isArray(value.entries)) {
    throw new Error('no entries');
  }
  return value.entries.filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null);
}

function objectOf(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object');
  return Object.fromEntries(Object.entries(value));
}

describe.each(ENGINES)('Doit.im client replay on %s', (engine) => {
  const suite = useHarness(engine);

  it('lists, creates with its own id, fetches, completes, deletes and syncs the tombstone', async () => {
    const { harness } = suite();
    const { user } = await suite().newClient('Asia/Shanghai');
    const headers = { authorization: `OAuth ${user.token}`, 'content-type': 'application/json; charset=utf-8' };
    const get = (url: string) =>
      harness.app.inject({ method: 'GET', url, headers: { authorization: headers.authorization } });
    const post = (body: unknown) =>
      harness.app.inject({ method: 'POST', url: '/v1/tasks', headers, payload: JSON.stringify(body) });

    // 1. First sync: the full list, read from `entries`.
    const first = await get('/v1/tasks');
    expect(first.statusCode).toBe(200);
    expect(entriesOf(parse(first.body))).toEqual([]);
    const firstSyncedAt = '2000-01-01 00:00:00 +0800';

    // 2. Create with a client-made id, dates in the seed's format, text with HTML characters.
    const created = await post({
      id: CLIENT_ID,
      title: 'Call "Bob" & <Alice>',
      notes: "Don't forget",
      attribute: 'inbox',
      all_day: false,
      start_at: '2026-11-21 09:30:00 +0800',
      end_at: '2026-11-21 10:30:00 +0800',
      project: 'Q&A',
      context: '@phone',
      tags: ['calls', 'R&D'],
      priority: 2,
    });
    expect(created.statusCode, created.body).toBe(200);
    const task = objectOf(parse(created.body));
    expect(task).toMatchObject({
      id: CLIENT_ID,
      title: 'Call &quot;Bob&quot; &amp; &lt;Alice&gt;',
      notes: 'Don&#39;t forget',
      attribute: 'inbox',
      start_at: '2026-11-21 09:30:00 +0800',
      end_at: '2026-11-21 10:30:00 +0800',
      project: 'Q&amp;A',
      tags: ['calls', 'R&amp;D'],
      completed: null,
      deleted: null,
    });

    // 3. Fetch it by its id, URL-encoded as clients should, and raw as many do.
    const encoded = await get('/v1/tasks/Jd1L1v0nQ0ypG4m0S8q4xg%3D%3D');
    const raw = await get(`/v1/tasks/${CLIENT_ID}`);
    const lower = await get('/v1/tasks/Jd1L1v0nQ0ypG4m0S8q4xg%3d%3d');
    for (const answer of [encoded, raw, lower]) {
      expect(answer.statusCode).toBe(200);
      expect(parse(answer.body)).toEqual(task);
    }

    // 4. Complete it: the whole task back, its text unescaped as displayed, `completed` set.
    const held = objectOf(unescapeAll(task));
    expect(held['title']).toBe('Call "Bob" & <Alice>');
    const completed = await post({ ...held, completed: '2026-11-21 11:00:00 +0800' });
    expect(completed.statusCode, completed.body).toBe(200);
    const done = objectOf(parse(completed.body));
    expect(done).toMatchObject({
      id: CLIENT_ID,
      title: task['title'],
      notes: task['notes'],
      project: task['project'],
      project_id: task['project_id'],
      context: task['context'],
      tags: task['tags'],
      completed: '2026-11-21 11:00:00 +0800',
    });
    expect(done['rev']).toEqual(expect.any(Number));

    // 5. Delete it: the whole task back again with `deleted` set.
    const deleted = await post({ ...objectOf(unescapeAll(done)), deleted: '2026-11-21 12:00:00 +0800' });
    expect(deleted.statusCode, deleted.body).toBe(200);
    const tombstone = objectOf(parse(deleted.body));
    expect(tombstone).toMatchObject({ id: CLIENT_ID, deleted: '2026-11-21 12:00:00 +0800', title: task['title'] });

    // 6. A later incremental sync shows the tombstone; a full list no longer shows the task.
    const later = await get(`/v1/tasks?updated_after=${encodeURIComponent(firstSyncedAt)}`);
    expect(later.statusCode).toBe(200);
    expect(entriesOf(parse(later.body))).toEqual([tombstone]);
    const unencodedPlus = await get('/v1/tasks?updated_after=2000-01-01 00:00:00 +0800'.replaceAll(' ', '+'));
    expect(entriesOf(parse(unencodedPlus.body))).toEqual([tombstone]);
    expect(entriesOf(parse((await get('/v1/tasks')).body))).toEqual([]);
  });

  it('syncs with a cursor the way a newer client would, seeing the completion and the deletion', async () => {
    const { client } = await suite().newClient();
    const start = await client.listTasks();
    const created = await client.createTask({ id: 'a+b/c==', title: 'slashes & pluses' });
    expect((await call(suite().harness.app, { url: '/v1/tasks/a+b/c==', token: client.token })).json).toEqual(created);
    expect(await client.getTask('a+b/c==')).toEqual(created);
    const afterCreate = await client.listTasks(`cursor=${start.cursor}`);
    expect(afterCreate.entries).toEqual([created]);
    const done: WireTask = await client.createTask({ ...objectOf(unescapeAll(created)), completed: created.created });
    const gone: WireTask = await client.createTask({ ...objectOf(unescapeAll(done)), deleted: done.updated });
    expect((await client.listTasks(`cursor=${afterCreate.cursor}`)).entries).toEqual([gone]);
    expect(gone).toMatchObject({ title: 'slashes &amp; pluses', completed: created.created, deleted: done.updated });
  });

  it('gets the seed error example back: a body that is no JSON is E001 echoing the request', async () => {
    const { client } = await suite().newClient();
    const body =
      '{"title":"Buy <milk>","attribute":"inbox","all_day":false,"start_at":"2026-11-21 09:30:00 +0800","end_at":null';
    const answer = await client.post('/v1/tasks', body, { 'content-type': 'application/json; charset=utf-8' });
    expectError(answer, { status: 400, retcode: 'E001', retmsg: 'can not parse the request json', reqdata: body });
    expect(answer.text).toContain('Buy &lt;milk&gt;');
  });
});
