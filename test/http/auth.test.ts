/**
 * Authentication and isolation (API.md section 3): the three ways to send a token, scopes, and
 * accounts that cannot see or touch each other's records.
 */
import { describe, expect, it } from 'vitest';
import { call, ENGINES } from '../support/harness.js';
import {
  contextList,
  expectError,
  expectInvalid,
  ok,
  projectList,
  taskList,
  wireSettings,
  wireTask,
} from './support/api.js';
import { useHarness } from './support/setup.js';

describe.each(ENGINES)('authentication and isolation on %s', (engine) => {
  const suite = useHarness(engine);

  it('takes OAuth and Bearer in any case of the scheme, and ?access_token=', async () => {
    const { harness } = suite();
    const { client, user } = await suite().newClient();
    const task = await client.createTask({ title: 'mine' });
    for (const authorization of [
      `OAuth ${user.token}`,
      `oauth ${user.token}`,
      `OAUTH ${user.token}`,
      `Bearer ${user.token}`,
      `bearer ${user.token}`,
      `BeArEr ${user.token}`,
      `Bearer   ${user.token}`,
    ]) {
      const answer = await call(harness.app, { url: '/v1/tasks', headers: { authorization } });
      expect(ok(answer, taskList).entries, authorization).toEqual([task]);
    }
    const byQuery = await call(harness.app, { url: `/v1/tasks?access_token=${encodeURIComponent(user.token)}` });
    expect(ok(byQuery, taskList).entries).toEqual([task]);
    const withLimit = await call(harness.app, { url: `/v1/tasks?limit=1&access_token=${user.token}` });
    expect(ok(withLimit, taskList).entries).toEqual([task]);
    const one = await call(harness.app, { url: `/v1/tasks/${task.id}?access_token=${user.token}` });
    expect(ok(one, wireTask)).toEqual(task);
    const posted = await call(harness.app, {
      url: `/v1/tasks?access_token=${user.token}`,
      body: { title: 'by query' },
    });
    expect(ok(posted, wireTask).title).toBe('by query');
    const bearerPost = await call(harness.app, {
      url: '/v1/tasks',
      body: { title: 'by bearer' },
      headers: { authorization: `Bearer ${user.token}` },
    });
    expect(ok(bearerPost, wireTask).title).toBe('by bearer');
  });

  it('lets the Authorization header decide when both are given', async () => {
    const { harness } = suite();
    const { user } = await suite().newClient();
    const answer = await call(harness.app, { url: `/v1/tasks?access_token=${user.token}`, token: 'wrong' });
    expectError(answer, { status: 401, retcode: 'E401', retmsg: 'unauthorized' });
  });

  it('lets a read token GET everything and POST nothing', async () => {
    const { harness } = suite();
    const { client, user } = await suite().newClient();
    const task = await client.createTask({ title: 'readable', project: 'P', context: '@c' });
    const read = (url: string) => call(harness.app, { url, token: user.readToken });
    expect(ok(await read('/v1/tasks'), taskList).entries).toEqual([task]);
    expect(ok(await read(`/v1/tasks/${task.id}`), wireTask)).toEqual(task);
    expect(ok(await read('/v1/projects'), projectList).entries).toHaveLength(1);
    expect(ok(await read('/v1/contexts'), contextList).entries).toHaveLength(1);
    expect(ok(await read('/v1/settings'), wireSettings).username).toBe(user.username);
    const post = await call(harness.app, {
      url: '/v1/tasks',
      token: user.readToken,
      body: { id: task.id, title: 'no' },
    });
    expectError(post, {
      status: 403,
      retcode: 'E403',
      retmsg: 'forbidden',
      reqdata: `{"id":"${task.id}","title":"no"}`,
    });
    const byQuery = await call(harness.app, { url: `/v1/tasks?access_token=${user.readToken}`, body: { title: 'no' } });
    expectError(byQuery, { status: 403, retcode: 'E403', retmsg: 'forbidden' });
    expect(await client.getTask(task.id)).toEqual(task);
  });

  it('needs no credential for /healthz and one for every /v1 path', async () => {
    const { harness } = suite();
    const health = await call(harness.app, { url: '/healthz' });
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    for (const url of ['/v1/tasks', '/v1/tasks/x', '/v1/projects', '/v1/projects/x', '/v1/contexts', '/v1/settings']) {
      const answer = await call(harness.app, { url });
      expectError(answer, { status: 401, retcode: 'E401', retmsg: 'unauthorized', reqdata: '' });
      expect(answer.headers['www-authenticate']).toBeDefined();
    }
  });

  it("answers another account's task id as not found, and a POST of that id makes the caller's own task", async () => {
    const { client: alice } = await suite().newClient();
    const { client: bob } = await suite().newClient();
    const secret = await alice.createTask({
      id: 'shared-id',
      title: 'alice private',
      notes: 'secret',
      project: 'Work',
    });
    const aliceCursor = (await alice.listTasks()).cursor;

    expectError(await bob.get('/v1/tasks/shared-id'), {
      status: 400,
      retcode: 'E007',
      retmsg: 'not found: task shared-id',
      reqdata: '',
    });
    // An update of someone else's id is a create in the caller's account: a title is needed.
    expectInvalid(await bob.post('/v1/tasks', { id: 'shared-id', completed: '2026-01-01' }), 'title');
    expectInvalid(await bob.post('/v1/tasks', { id: 'shared-id', deleted: '2026-01-01' }), 'title');

    const bobs = await bob.createTask({ id: 'shared-id', title: 'bob own', project: 'Work' });
    expect(bobs).toMatchObject({ id: 'shared-id', title: 'bob own', notes: '', project: 'Work' });
    expect(bobs.project_id).not.toBe(secret.project_id);
    expect(await bob.getTask('shared-id')).toEqual(bobs);

    // Alice's task and change numbers are untouched.
    expect(await alice.getTask('shared-id')).toEqual(secret);
    expect((await alice.listTasks(`cursor=${aliceCursor}`)).entries).toEqual([]);
    expect((await bob.listTasks()).entries).toEqual([bobs]);
  });

  it("refuses another account's project or context id on a task, and hides its labels", async () => {
    const { client: alice } = await suite().newClient();
    const { client: bob } = await suite().newClient();
    const project = await alice.createProject({ name: 'Alice project' });
    const context = await alice.createContext({ name: '@alice' });
    expectInvalid(await bob.post('/v1/tasks', { title: 't', project_id: project.id }), 'project_id');
    expectInvalid(await bob.post('/v1/tasks', { title: 't', context_id: context.id }), 'context_id');
    expectError(await bob.get(`/v1/projects/${project.id}`), {
      status: 400,
      retcode: 'E007',
      retmsg: `not found: project ${project.id}`,
    });
    expect(ok(await bob.get('/v1/projects'), projectList).entries).toEqual([]);
    expect(ok(await bob.get('/v1/contexts'), contextList).entries).toEqual([]);
    // A POST of Alice's project id makes Bob's own project.
    const bobsProject = await bob.createProject({ id: project.id, name: 'Bob project' });
    expect(bobsProject.id).toBe(project.id);
    expect(ok(await alice.get(`/v1/projects/${project.id}`), projectList.shape.entries.element)).toEqual(project);
  });

  it('keeps settings per account', async () => {
    const { client: alice, user: aliceUser } = await suite().newClient('Asia/Tokyo');
    const { client: bob } = await suite().newClient();
    await bob.post('/v1/settings', { nickname: 'Bob', timezone: 'Europe/Berlin' });
    expect(await alice.settings()).toMatchObject({ nickname: aliceUser.username, timezone: 'Asia/Tokyo' });
  });
});
