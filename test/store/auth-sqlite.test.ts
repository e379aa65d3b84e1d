import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { authStoreSuite } from './auth-suite.js';

authStoreSuite('sqlite', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'task-service-auth-'));
  const store = openSqliteStore({ file: path.join(dir, 'tasks.sqlite') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
