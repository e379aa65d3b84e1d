/**
 * Projects and contexts (API.md section 4.2) and how tasks point at them: by name (created once,
 * also under concurrent requests) or by id; renames and deletions shown on the tasks as changes.
 */
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import {
  contextList,
  entriesOf,
  expectError,
  expectInvalid,
  ok,
  projectList,
  unescapeAll,
  wireContext,
  wireProject,
  wireTask,
  type Client,
  type WireProject,
} from './support/api.js';
import { useHarness } from './support/setup.js';

async function projects(client: Client): Promise<WireProject[]> {
  return ok(await client.get('/v1/projects'), projectList).entries;
}

describe.each(ENGINES)('projects and contexts on %s', (engine) => {
  const suite = useHarness(engine);

  it('creates, lists and gets projects and contexts', async () => {
    const { client } = await suite().newClient('Asia/Tokyo');
    const project = await client.createProject({ name: 'Work', notes: 'office' });
    expect(project).toEqual({
      id: expect.any(String),
      name: 'Work',
      notes: 'office',
      archived: null,
      color: null,
      deleted: null,
      created: expect.stringMatching(/ \+0900$/),
      updated: project.created,
      rev: expect.any(Number),
    });
    const context = await client.createContext({ name: '@home', notes: 'ignored for contexts' });
    expect(context).toEqual({
      id: expect.any(String),
      name: '@home',
      deleted: null,
      created: expect.any(String),
      updated: context.created,
      rev: project.rev + 1,
    });
    expect(await projects(client)).toEqual([project]);
    expect(ok(await client.get('/v1/contexts'), contextList).entries).toEqual([context]);
    expect(ok(await client.get(`/v1/projects/${project.id}`), wireProject)).toEqual(project);
    expect(ok(await client.get(`/v1/contexts/${context.id}`), wireContext)).toEqual(context);
    const archived = await client.createProject({ id: project.id, archived: '2026-11-21' });
    expect(archived).toMatchObject({ name: 'Work', notes: 'office', archived: '2026-11-21 00:00:00 +0900' });
    const withId = await client.createProject({ id: 'proj-1', name: 'Client id' });
    expect(withId.id).toBe('proj-1');
  });

  it('sets, shows and clears a project color; a context has none', async () => {
    const { client } = await suite().newClient();
    const project = await client.createProject({ name: 'Garden', color: '#2da44e' });
    expect(project).toMatchObject({ name: 'Garden', color: '#2da44e' });
    expect(await client.createProject({ id: project.id, color: '#2DA44E80' })).toMatchObject({ color: '#2DA44E80' });
    expect(await client.createProject({ id: project.id, name: 'Yard' })).toMatchObject({ color: '#2DA44E80' });
    expect(await client.createProject({ id: project.id, color: null })).toMatchObject({ color: null });
    for (const color of ['green', '#12345', '#1234567', 7]) {
      expectError(await client.post('/v1/projects', { id: project.id, color }), {
        status: 400,
        retcode: 'E004',
        retmsg: typeof color === 'string' ? 'invalid parameter: color (is #RRGGBB)' : /^invalid parameter: color/,
      });
    }
    const context = await client.createContext({ name: '@garden', color: '#2da44e' });
    expect(context).not.toHaveProperty('color');
  });

  it('names the bad field of a project or context', async () => {
    const { client } = await suite().newClient();
    expectInvalid(await client.post('/v1/projects', { notes: 'no name' }), 'name');
    expectInvalid(await client.post('/v1/projects', { name: '' }), 'name');
    expectInvalid(await client.post('/v1/projects', { name: 'x'.repeat(201) }), 'name');
    expectInvalid(await client.post('/v1/contexts', { name: 7 }), 'name');
    expectInvalid(await client.post('/v1/projects', { name: 'p', archived: '2026-02-30' }), 'archived');
    expectInvalid(await client.post('/v1/projects', [{ name: 'ok' }, { name: '' }]), '[1].name');
    expectError(await client.get('/v1/contexts/none'), {
      status: 400,
      retcode: 'E007',
      retmsg: 'not found: context none',
    });
    expect(await projects(client)).toEqual([]);
    expect((await client.createProject({ name: 'x'.repeat(200) })).name).toHaveLength(200);
  });

  it('refuses a name clash among live labels, and a deleted one frees its name', async () => {
    const { client } = await suite().newClient();
    const work = await client.createProject({ name: 'Work' });
    expectInvalid(await client.post('/v1/projects', { name: 'Work' }), 'name');
    const other = await client.createProject({ name: 'Other' });
    expectInvalid(await client.post('/v1/projects', { id: other.id, name: 'Work' }), 'name');
    expectInvalid(await client.post('/v1/projects', [{ name: 'Fresh' }, { name: 'Fresh' }]), '[1].name');
    // Re-saving a project under its own name is no clash.
    expect((await client.createProject({ id: work.id, name: 'Work', notes: 'n' })).notes).toBe('n');

    const deleted = await client.createProject({ id: work.id, deleted: '2026-01-01' });
    expect(deleted.deleted).not.toBeNull();
    const again = await client.createProject({ name: 'Work' });
    expect(again.id).not.toBe(work.id);
    // Restoring the deleted one would make two live "Work": refused.
    expectInvalid(await client.post('/v1/projects', { id: work.id, deleted: null }), 'name');
    expect((await projects(client)).map((project) => project.name)).toEqual(['Other', 'Work']);

    await client.createContext({ name: '@c' });
    expectInvalid(await client.post('/v1/contexts', { name: '@c' }), 'name');
    // Projects and contexts are separate name spaces.
    expect((await client.createProject({ name: '@c' })).name).toBe('@c');
  });

  it('answers an if_rev mismatch on a project with E009', async () => {
    const { client } = await suite().newClient();
    const project = await client.createProject({ name: 'P' });
    await client.createProject({ id: project.id, notes: 'changed' });
    expectError(await client.post('/v1/projects', { id: project.id, name: 'Q', if_rev: project.rev }), {
      status: 400,
      retcode: 'E009',
      retmsg: `conflict: project ${project.id} changed`,
    });
    expect((await projects(client))[0]?.name).toBe('P');
  });

  it('creates a project named on a task once, and shows project and project_id', async () => {
    const { client } = await suite().newClient();
    const first = await client.createTask({ title: 'dig', project: 'Home & Garden' });
    expect(first.project).toBe('Home &amp; Garden');
    expect(first.project_id).toEqual(expect.any(String));
    const second = await client.createTask({ title: 'plant', project: 'Home & Garden' });
    expect(second.project_id).toBe(first.project_id);
    const list = await projects(client);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: first.project_id, name: 'Home &amp; Garden', notes: '' });
    // The project was made before the task, in the same change: consecutive revs.
    expect(list[0]?.rev).toBe(first.rev - 1);

    const byId = await client.createTask({ title: 'water', project_id: first.project_id });
    expect(byId).toMatchObject({ project: 'Home &amp; Garden', project_id: first.project_id });
    const withContext = await client.createTask({ title: 'rake', context: '@garden' });
    const contexts = ok(await client.get('/v1/contexts'), contextList).entries;
    expect(contexts).toEqual([expect.objectContaining({ id: withContext.context_id, name: '@garden' })]);
  });

  it('creates the project once when two requests name it at the same time', async () => {
    const { client } = await suite().newClient();
    const answers = await Promise.all([
      client.createTask({ title: 'a', project: 'Home & Garden', context: '@yard' }),
      client.createTask({ title: 'b', project: 'Home & Garden', context: '@yard' }),
      client.postTasks([
        { title: 'c', project: 'Home & Garden' },
        { title: 'd', project: 'Home & Garden' },
      ]),
    ]);
    const [a, b, [c, d]] = answers;
    const ids = new Set([a.project_id, b.project_id, c?.project_id, d?.project_id]);
    expect(ids.size).toBe(1);
    expect(await projects(client)).toHaveLength(1);
    expect(ok(await client.get('/v1/contexts'), contextList).entries).toHaveLength(1);
  });

  it('reads project "" and null as none, and creates nothing for them', async () => {
    const { client } = await suite().newClient();
    expect(await client.createTask({ title: 't', project: '', context: '' })).toMatchObject({
      project: null,
      project_id: null,
      context: null,
      context_id: null,
    });
    const task = await client.createTask({ title: 'u', project: 'P', context: '@c' });
    const cleared = await client.createTask({ id: task.id, project: '', context: null });
    expect(cleared).toMatchObject({ project: null, project_id: null, context: null, context_id: null });
    const again = await client.createTask({ id: task.id, project: 'P', project_id: '' });
    expect(again).toMatchObject({ project: 'P', project_id: task.project_id });
    expect(await projects(client)).toHaveLength(1);
  });

  it('shows a rename on the tasks, as changes a cursor-syncing client receives', async () => {
    const { client } = await suite().newClient();
    const t1 = await client.createTask({ title: 't1', project: 'Old' });
    const t2 = await client.createTask({ title: 't2', project: 'Old', context: '@ctx' });
    const unrelated = await client.createTask({ title: 'other' });
    const gone = await client.createTask({ title: 'gone', project: 'Old' });
    const tombstone = await client.createTask({ id: gone.id, deleted: '2026-01-01' });
    const { cursor } = await client.listTasks();

    const renamed = await client.createProject({ id: t1.project_id, name: 'New <name>' });
    const changes = await client.listTasks(`cursor=${cursor}`);
    expect(changes.entries.map((task) => task.id).sort()).toEqual([t1.id, t2.id].sort());
    for (const task of changes.entries) {
      expect(task).toMatchObject({ project: 'New &lt;name&gt;', project_id: t1.project_id });
      expect(task.rev).toBeGreaterThan(renamed.rev - 1);
    }
    expect(await client.getTask(unrelated.id)).toEqual(unrelated);
    // A tombstone keeps what it was deleted with.
    expect(await client.getTask(gone.id)).toEqual(tombstone);
    const projectChanges = ok(await client.get(`/v1/projects?cursor=${cursor}`), projectList).entries;
    expect(projectChanges).toEqual([renamed]);

    const contextId = t2.context_id;
    const renamedContext = ok(await client.post('/v1/contexts', { id: contextId, name: '@new' }), wireContext);
    const after = await client.listTasks(`cursor=${changes.cursor}`);
    expect(after.entries).toEqual([
      expect.objectContaining({ id: t2.id, context: '@new', context_id: contextId, project: 'New &lt;name&gt;' }),
    ]);
    expect(after.entries[0]?.rev).toBeGreaterThan(renamedContext.rev);
  });

  it('rewrites each task once for one array renaming its project many times', { timeout: 60_000 }, async () => {
    const { client } = await suite().newClient();
    const tasks = await client.postTasks(
      Array.from({ length: 300 }, (_unused, index) => ({ title: `t${index}`, project: 'Many' })),
    );
    const projectId = tasks[0]?.project_id ?? '';
    const { cursor } = await client.listTasks('limit=1');
    const before = Math.max(...tasks.map((task) => task.rev));
    // Issue #16: 200 renames of a project on 300 tasks rewrote them 200 times (60,000 changes).
    const renames = Array.from({ length: 200 }, (_unused, index) => ({ id: projectId, name: `name ${index}` }));
    const renamed = ok(await client.post('/v1/projects', renames), entriesOf(wireProject)).entries;
    expect(renamed.map((project) => project.rev)).toEqual(renames.map((_rename, index) => before + index + 1));
    const changes = await client.listTasks(`cursor=${cursor}`);
    expect(changes.entries).toHaveLength(300);
    for (const task of changes.entries) expect(task).toMatchObject({ project: 'name 199', project_id: projectId });
    expect(Math.max(...changes.entries.map((task) => task.rev))).toBe(before + 200 + 300);

    // Renamed away and back in one request: the tasks already show the name, and are left alone.
    const head = before + 500;
    const back = ok(
      await client.post('/v1/projects', [
        { id: projectId, name: 'elsewhere' },
        { id: projectId, name: 'name 199' },
      ]),
      entriesOf(wireProject),
    ).entries;
    expect(back.map((project) => project.rev)).toEqual([head + 1, head + 2]);
    expect((await client.listTasks(`cursor=${changes.cursor}`)).entries).toEqual([]);
  });

  it('clears a deleted project from its tasks, as changes', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 't', project: 'Doomed', context: '@doomed' });
    const { cursor } = await client.listTasks();
    await client.createProject({ id: task.project_id, deleted: '2026-01-01' });
    const changes = await client.listTasks(`cursor=${cursor}`);
    expect(changes.entries).toEqual([
      { ...task, project: null, project_id: null, rev: expect.any(Number), updated: expect.any(String) },
    ]);
    expect(changes.entries[0]?.rev).toBeGreaterThan(task.rev);
    expect(await projects(client)).toEqual([]);

    await client.createContext({ id: task.context_id, deleted: '2026-01-01' });
    expect(await client.getTask(task.id)).toMatchObject({ context: null, context_id: null });
    // The name is free again: a task naming it gets a new project.
    const again = await client.createTask({ title: 'u', project: 'Doomed' });
    expect(again.project_id).not.toBe(task.project_id);
    expectInvalid(await client.post('/v1/tasks', { title: 'v', project_id: task.project_id }), 'project_id');
  });

  it('keeps the project of a whole task posted back after its project was renamed', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 't', project: 'Before' });
    await client.createProject({ id: task.project_id, name: 'After' });
    const current = await client.getTask(task.id);
    const sentBack = await client.createTask({ ...wireTask.parse(unescapeAll(current)), priority: 1 });
    expect(sentBack).toMatchObject({ project: 'After', project_id: task.project_id, priority: 1 });
    expect(await projects(client)).toHaveLength(1);
  });

  it('moves a task to another project when a whole task comes back with a new project name', async () => {
    const { client } = await suite().newClient();
    const task = await client.createTask({ title: 't', project: 'First' });
    // An old client edits the name it shows and sends the whole task back, project_id untouched.
    const moved = await client.createTask({ ...wireTask.parse(unescapeAll(task)), project: 'Second' });
    expect(moved.project).toBe('Second');
    expect(moved.project_id).not.toBe(task.project_id);
    // And with a new project_id but the old name left in place, the id counts.
    const other = await client.createProject({ name: 'Third' });
    const byId = await client.createTask({ ...wireTask.parse(unescapeAll(moved)), project_id: other.id });
    expect(byId).toMatchObject({ project: 'Third', project_id: other.id });
    expect((await projects(client)).map((project) => project.name).sort()).toEqual(['First', 'Second', 'Third']);
    // A name cleared to "" with the id left in place clears the project.
    const cleared = await client.createTask({ ...wireTask.parse(unescapeAll(byId)), project: '' });
    expect(cleared).toMatchObject({ project: null, project_id: null });
  });

  it('answers arrays of labels in input order', async () => {
    const { client } = await suite().newClient();
    const answer = ok(await client.post('/v1/contexts', [{ name: '@a' }, { name: '@b' }]), entriesOf(wireContext));
    expect(answer.entries.map((context) => context.name)).toEqual(['@a', '@b']);
    expect(answer.entries[1]?.rev).toBe((answer.entries[0]?.rev ?? 0) + 1);
  });
});
