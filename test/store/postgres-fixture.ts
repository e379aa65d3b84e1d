import type { Micros } from '../../src/domain/time.js';
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
  options: Omit<PostgresOptions, 'url'> & { readonly clock?: () => Micros } = {},
): Promise<OpenedPostgresStore> {
  const database = await createTestDatabase();
  const { clock, ...poolOptions } = options;
  const store = openPostgresStore({ ...poolOptions, url: database.url }, clock);
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

// The same drafts as the shared suite's, for the PostgreSQL-only tests.
export { contextDraft, projectDraft, taskDraft } from './suite.js';

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
