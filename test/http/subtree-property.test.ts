/**
 * A property of the task tree (contract section 4.4), through /v1 on both engines: whatever
 * sequence of creating, re-parenting, moving to another project, trashing, restoring and deleting
 * a client sends (refused steps included), no live task is its own ancestor, none has a missing
 * or deleted parent, none is in another project than its parent, and a client that syncs with a
 * cursor after each step holds exactly what the server lists.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ENGINES } from '../support/harness.js';
import type { Client, WireTask } from './support/api.js';
import { useHarness } from './support/setup.js';

const IDS = ['t0', 't1', 't2', 't3', 't4', 't5'] as const;
const PROJECTS = ['Home', 'Work', ''] as const;

const id = fc.constantFrom(...IDS);
const step = fc.oneof(
  fc.record({ kind: fc.constant('create' as const), id, parent: fc.option(id, { nil: null }) }),
  fc.record({ kind: fc.constant('reparent' as const), id, parent: fc.option(id, { nil: null }) }),
  fc.record({ kind: fc.constant('move' as const), id, project: fc.constantFrom(...PROJECTS) }),
  fc.record({ kind: fc.constant('trash' as const), id }),
  fc.record({ kind: fc.constant('restore' as const), id }),
  fc.record({ kind: fc.constant('delete' as const), id }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

function bodyOf(action: Step): Record<string, unknown> {
  const when = '2030-01-01 00:00:00 +0000';
  switch (action.kind) {
    case 'create':
      return { id: action.id, title: action.id, ...(action.parent === null ? {} : { parent_id: action.parent }) };
    case 'reparent':
      return { id: action.id, parent_id: action.parent };
    case 'move':
      return { id: action.id, project: action.project };
    case 'trash':
      return { id: action.id, trashed: when };
    case 'restore':
      return { id: action.id, trashed: null };
    case 'delete':
      return { id: action.id, deleted: when };
  }
}

/** The rules of the tree on what the server lists (live tasks). */
function expectTreeHolds(live: readonly WireTask[]): void {
  const byId = new Map(live.map((task) => [task.id, task]));
  for (const task of live) {
    if (task.parent_id === null) continue;
    const parent = byId.get(task.parent_id);
    expect(parent, `parent of ${task.id}`).toBeDefined();
    expect(parent?.project_id, `project of ${task.id}`).toBe(task.project_id);
    const seen = new Set([task.id]);
    for (let up = parent; up !== undefined && up.parent_id !== null; up = byId.get(up.parent_id)) {
      expect(seen.has(up.id), `loop through ${task.id}`).toBe(false);
      seen.add(up.id);
    }
  }
}

/** A syncing client's copy: what it read first, then each page of changes after its cursor. */
class SyncedCopy {
  readonly tasks = new Map<string, WireTask>();
  cursor = '';

  constructor(private readonly client: Client) {}

  async sync(): Promise<void> {
    for (let more = true; more;) {
      const page = await this.client.listTasks(this.cursor === '' ? '' : `cursor=${encodeURIComponent(this.cursor)}`);
      for (const task of page.entries) {
        if (task.deleted === null) this.tasks.set(task.id, task);
        else this.tasks.delete(task.id);
      }
      this.cursor = page.cursor;
      more = page.has_more;
    }
  }
}

describe.each(ENGINES)('the task tree on %s', (engine) => {
  const suite = useHarness(engine);

  it('never holds a loop, an orphan or a subtask in another project, and syncs exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
        const { client } = await suite().newClient();
        const copy = new SyncedCopy(client);
        await copy.sync();
        for (const action of steps) {
          const answer = await client.post('/v1/tasks', bodyOf(action));
          // A refused step (a loop, an unknown task) is E004 or E007-like and changes nothing.
          expect([200, 400, 404]).toContain(answer.status);
          const live = (await client.listTasks()).entries;
          expectTreeHolds(live);
          await copy.sync();
          expect(new Map(live.map((task) => [task.id, task]))).toEqual(copy.tasks);
        }
      }),
      { numRuns: engine === 'sqlite' ? 40 : 15 },
    );
  }, 120_000);
});
