/**
 * A rename or deletion of a project or context on many tasks in one request, without holding
 * other accounts: on SQLite (one writer for all) it is shown on the tasks ahead in commits of
 * LABEL_COMMIT, and the result, and what a syncing client sees, equals the same change in one commit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/http/load-shedder.js';
import { writeLabels } from '../../src/service/labels.js';
import { deleteCollectionIn } from '../../src/service/collection-delete.js';
import { upsertOne } from '../../src/service/tasks.js';
import type { Store } from '../../src/store/store.js';
import { ENGINES } from '../support/harness.js';
import {
  contextList,
  expectInvalid,
  ok,
  projectList,
  wireContext,
  wireProject,
  type Client,
  type WireTask,
} from './support/api.js';
import { useHarness } from './support/setup.js';
import { writingMeanwhile } from './support/meanwhile.js';
import { dav, multistatus } from '../dav/support.js';

/**
 * Tasks under the label: on SQLite many commits' worth, so that other accounts' writes have room
 * to come between them. A PostgreSQL commit holds only its own account, and the rename stays one
 * commit there: fewer tasks show the same.
 */
const TASKS = { sqlite: 10_000, postgres: 1_200 } as const;

/** `count` tasks in the project `Home` and the context `Desk` (made by the first), in one commit. */
async function plantTasks(store: Store, accountId: number, count: number): Promise<void> {
  await store.write(accountId, async (tx) => {
    const now = Date.now() * 1000;
    for (let index = 0; index < count; index += 1) {
      await upsertOne(
        tx,
        'UTC',
        { id: `t${index}`, title: 'task', project: { name: 'Home' }, context: { name: 'Desk' } },
        now,
      );
    }
  });
}

/** What a label change decides of each task. */
function shape(tasks: readonly WireTask[]): Map<string, string> {
  return new Map(tasks.map((task) => [task.id, [task.project, task.context, task.deleted === null].join('|')]));
}

async function changesAfter(client: Client, cursor: string): Promise<WireTask[]> {
  return (await client.listTasks(`cursor=${encodeURIComponent(cursor)}`)).entries;
}

describe.each(ENGINES)('a label of many tasks on %s', (engine) => {
  const suite = useHarness(engine, { app: { caldav: true } });
  const planted = TASKS[engine];

  /** Two accounts holding the same tasks: one changed through the API, one in one commit. */
  async function twins(count: number) {
    const store = suite().harness.store;
    const ahead = await suite().newClient();
    const reference = await suite().newClient();
    for (const { user } of [ahead, reference]) await plantTasks(store, await suite().accountIdOf(user), count);
    // Planting ran on this process's event loop in one go: the load shedder's window passes first.
    await sleep(3 * WINDOW_MS);
    const aheadId = await suite().accountIdOf(ahead.user);
    const referenceId = await suite().accountIdOf(reference.user);
    const [project] = ok(await ahead.client.get('/v1/projects'), projectList).entries;
    const [referenceProject] = ok(await reference.client.get('/v1/projects'), projectList).entries;
    if (project === undefined || referenceProject === undefined) throw new Error('no project planted');
    return { store, ahead, reference, aheadId, referenceId, project, referenceProject };
  }

  it(
    'renames a project in one request while another account writes, as one commit would',
    { timeout: 300_000 },
    async () => {
      const { store, ahead, reference, aheadId, referenceId, project, referenceProject } = await twins(planted);
      const { client: other } = await suite().newClient();
      const start = await ahead.client.listTasks();
      const headBefore = (await store.head(aheadId))?.rev ?? 0;

      const { result: renamed, answeredFirst } = await writingMeanwhile(
        other,
        ahead.client.createProject({ id: project.id, name: 'Garden' }),
      );
      expect(renamed.name).toBe('Garden');
      expect(answeredFirst).toBeGreaterThan(0);

      await store.write(referenceId, (tx) =>
        writeLabels(tx, 'project', [{ id: referenceProject.id, name: 'Garden' }], false),
      );
      const after = (await ahead.client.listTasks()).entries;
      expect(shape(after)).toEqual(shape((await reference.client.listTasks()).entries));
      expect(after.every((task) => task.project === 'Garden')).toBe(true);
      // Each task written once, and the project.
      expect(((await store.head(aheadId))?.rev ?? 0) - headBefore).toBe(planted + 1);
      const synced = await changesAfter(ahead.client, start.cursor);
      expect(synced).toHaveLength(planted);
      expect(new Set(synced.map((task) => task.rev)).size).toBe(planted);
    },
  );

  it(
    'renames a calendar through CalDAV (PROPPATCH) while another account writes, as one commit would',
    { timeout: 300_000 },
    async () => {
      const { store, ahead, aheadId, project } = await twins(planted);
      const { client: other } = await suite().newClient();
      const headBefore = (await store.head(aheadId))?.rev ?? 0;
      const { result: patched, answeredFirst } = await writingMeanwhile(
        other,
        dav(suite().harness.app, ahead.user, {
          method: 'PROPPATCH',
          url: `/dav/calendars/${ahead.user.username}/${project.id}/`,
          body: `<d:propertyupdate xmlns:d="DAV:"><d:set><d:prop><d:displayname>Garden</d:displayname></d:prop></d:set></d:propertyupdate>`,
        }),
      );
      expect([...multistatus(patched).responses.values()][0]?.props.has('displayname')).toBe(true);
      expect(answeredFirst).toBeGreaterThan(0);
      expect((await ahead.client.listTasks()).entries.every((task) => task.project === 'Garden')).toBe(true);
      expect(((await store.head(aheadId))?.rev ?? 0) - headBefore).toBe(planted + 1);
    },
  );

  it(
    'deletes a calendar through CalDAV while another account writes, its tasks (subtasks too) in the trash as one commit would',
    { timeout: 300_000 },
    async () => {
      const { store, ahead, reference, aheadId, referenceId, project, referenceProject } = await twins(planted);
      // Subtasks follow their parent: of the first 600 tasks, each even one a child of the next,
      // whose later change puts it after its child in `rev` order, so that a slice of the project
      // holds children whose parents come in the next.
      for (const accountId of [aheadId, referenceId]) {
        await store.write(accountId, async (tx) => {
          const now = Date.now() * 1000;
          for (let index = 0; index < 600; index += 2) {
            await upsertOne(tx, 'UTC', { id: `t${index}`, parentId: `t${index + 1}` }, now);
          }
          for (let index = 1; index < 600; index += 2) {
            await upsertOne(tx, 'UTC', { id: `t${index}`, title: 'parent' }, now);
          }
          // And one subtree larger than a commit takes.
          for (let index = 600; index <= 1100; index += 1) {
            await upsertOne(tx, 'UTC', { id: `t${index}`, parentId: 't1101' }, now);
          }
        });
      }
      await sleep(3 * WINDOW_MS);
      const { client: other } = await suite().newClient();
      const start = await ahead.client.listTasks();
      const headBefore = (await store.head(aheadId))?.rev ?? 0;
      const { result: deleted, answeredFirst } = await writingMeanwhile(
        other,
        dav(suite().harness.app, ahead.user, {
          method: 'DELETE',
          url: `/dav/calendars/${ahead.user.username}/${project.id}/`,
        }),
      );
      expect(deleted.status).toBe(204);
      expect(answeredFirst).toBeGreaterThan(0);

      await store.write(referenceId, (tx) => deleteCollectionIn(tx, 'UTC', referenceProject.id, Date.now() * 1000));
      const trashShape = (tasks: readonly WireTask[]) =>
        new Map(tasks.map((task) => [task.id, [task.project, task.parent_id, task.trashed !== null].join('|')]));
      const after = (await ahead.client.listTasks()).entries;
      expect(trashShape(after)).toEqual(trashShape((await reference.client.listTasks()).entries));
      expect(after.filter((task) => task.project !== null || task.trashed === null)).toEqual([]);
      expect(ok(await ahead.client.get('/v1/projects'), projectList).entries).toEqual([]);
      // Each task written once, and the project.
      expect(((await store.head(aheadId))?.rev ?? 0) - headBefore).toBe(planted + 1);
      const synced = await changesAfter(ahead.client, start.cursor);
      expect(synced).toHaveLength(planted);
      // On SQLite the large subtree was written ahead, deepest first: its top comes after it.
      const revOf = new Map(synced.map((task) => [task.id, task.rev]));
      const below = synced.filter((task) => task.parent_id === 't1101').map((task) => task.rev);
      expect(below).toHaveLength(501);
      const topLast = (revOf.get('t1101') ?? 0) > Math.max(...below);
      expect(topLast).toBe(engine === 'sqlite');
    },
  );

  it(
    'deletes a context of 1,200 tasks, which keep going without it, as one commit would',
    { timeout: 120_000 },
    async () => {
      const { store, ahead, reference, aheadId, referenceId } = await twins(1_200);
      const contexts = ok(await ahead.client.get('/v1/contexts'), contextList).entries;
      const referenceContexts = ok(await reference.client.get('/v1/contexts'), contextList).entries;
      const headBefore = (await store.head(aheadId))?.rev ?? 0;
      const deleted = '2026-11-21 10:00:00 +0000';
      ok(await ahead.client.post('/v1/contexts', { id: contexts[0]?.id, deleted }), wireContext);
      await store.write(referenceId, (tx) =>
        writeLabels(
          tx,
          'context',
          [{ id: referenceContexts[0]?.id ?? '', deleted: Date.UTC(2026, 10, 21, 10) * 1000 }],
          false,
        ),
      );
      const after = (await ahead.client.listTasks()).entries;
      expect(shape(after)).toEqual(shape((await reference.client.listTasks()).entries));
      expect(after.filter((task) => task.context === null && task.deleted === null)).toHaveLength(1_200);
      expect(((await store.head(aheadId))?.rev ?? 0) - headBefore).toBe(1_201);
    },
  );

  it('writes nothing ahead for a rename refused', { timeout: 120_000 }, async () => {
    const { store, ahead, aheadId, project } = await twins(1_200);
    await ahead.client.createProject({ name: 'Garden' });
    const headBefore = (await store.head(aheadId))?.rev;
    expectInvalid(await ahead.client.post('/v1/projects', { id: project.id, name: 'Garden' }), 'name');
    expect((await store.head(aheadId))?.rev).toBe(headBefore);
    expect((await ahead.client.listTasks()).entries.every((task) => task.project === 'Home')).toBe(true);
  });

  if (engine === 'sqlite') {
    it(
      'shows the stored name again on the tasks written ahead when the rename is refused after all',
      { timeout: 300_000 },
      async () => {
        const { store, ahead, aheadId, project } = await twins(planted);
        const headBefore = (await store.head(aheadId))?.rev ?? 0;
        const renaming = ahead.client.post('/v1/projects', { id: project.id, name: 'Garden' });
        // Once the first tasks show the new name, another project takes it: the rename's own commit
        // then finds it taken.
        while (((await store.head(aheadId))?.rev ?? 0) === headBefore) await sleep(1);
        await ahead.client.createProject({ name: 'Garden' });
        expectInvalid(await renaming, 'name');
        const tasks = (await ahead.client.listTasks()).entries;
        expect(tasks.filter((task) => task.project !== 'Home')).toEqual([]);
        expect(ok(await ahead.client.get(`/v1/projects/${project.id}`), wireProject).name).toBe('Home');
      },
    );
  }
});
