import type { ContextDraft, ProjectDraft } from '../../src/domain/label.js';
import type { TaskDraft } from '../../src/domain/task.js';
import type { ListSnapshot } from '../../src/store/store.js';
import { openPostgresStore, type PostgresOptions, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

export interface OpenedPostgresStore {
  readonly store: PostgresStore;
  readonly database: TestDatabase;
  cleanup(): Promise<void>;
}

/** A migrated store on a fresh database of its own; `cleanup` closes it and drops the database. */
export async function openTestPostgresStore(
  options: Omit<PostgresOptions, 'url'> = {},
): Promise<OpenedPostgresStore> {
  const database = await createTestDatabase();
  const store = openPostgresStore({ ...options, url: database.url });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    await database.drop();
    throw error;
  }
  return {
    store,
    database,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** A live inbox task with every optional field empty, changed by `fields`. */
export function taskDraft(id: string, fields: Partial<TaskDraft> = {}): TaskDraft {
  return {
    id,
    title: `task ${id}`,
    notes: '',
    attribute: 'inbox',
    allDay: false,
    startAt: null,
    endAt: null,
    completed: null,
    trashed: null,
    deleted: null,
    project: null,
    context: null,
    tags: [],
    priority: 0,
    repeater: null,
    ...fields,
  };
}

export function projectDraft(id: string, fields: Partial<ProjectDraft> = {}): ProjectDraft {
  return { id, name: `project ${id}`, notes: '', archived: null, deleted: null, ...fields };
}

export function contextDraft(id: string, fields: Partial<ContextDraft> = {}): ContextDraft {
  return { id, name: `context ${id}`, deleted: null, ...fields };
}

/** Reads a whole snapshot and closes it. */
export async function readAll<T>(snapshot: ListSnapshot<T>): Promise<T[]> {
  const records: T[] = [];
  try {
    for (let batch = await snapshot.nextBatch(); batch !== null; batch = await snapshot.nextBatch()) {
      records.push(...batch);
    }
  } finally {
    await snapshot.close();
  }
  return records;
}
