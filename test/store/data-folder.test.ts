/**
 * Issue #16, 6: other users of the machine can neither enter the data folder nor read the store:
 * the folder is 0700 and the store's files (database, WAL, shared memory) 0600, whatever the
 * umask, for a new folder and for one left open by an earlier release.
 */
import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openMigrated, SQLITE_FILE_NAME } from '../../src/store/open.js';

const modeOf = (file: string): number => statSync(file).mode & 0o777;

describe('the data folder of the embedded store', () => {
  let parent = '';
  afterEach(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  let opens = 0;

  /** Opens the store in `dataDir` and writes; answers the store files' modes while it is open. */
  async function opened(dataDir: string): Promise<Record<string, number>> {
    const store = await openMigrated({ engine: 'sqlite', dataDir });
    opens += 1;
    try {
      const account = await store.createAccount({ username: `modes${opens}`, passwordHash: null, timezone: 'UTC' });
      await store.write(account.id, (tx) => tx.put('context', { id: 'c', name: '@c', deleted: null }));
      // Listed while the store is open: the WAL and shared-memory files exist now.
      const names = readdirSync(dataDir).filter((name) => name.startsWith(SQLITE_FILE_NAME));
      return Object.fromEntries(names.map((name) => [name, modeOf(path.join(dataDir, name))]));
    } finally {
      await store.close();
    }
  }

  it('makes a new folder 0700 and the store files 0600, under a permissive umask', async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'data-folder-'));
    const dataDir = path.join(parent, 'new', 'data');
    const previous = process.umask(0o000);
    let modes: Record<string, number>;
    try {
      modes = await opened(dataDir);
    } finally {
      process.umask(previous);
    }
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modes).toEqual({
      [SQLITE_FILE_NAME]: 0o600,
      [`${SQLITE_FILE_NAME}-shm`]: 0o600,
      [`${SQLITE_FILE_NAME}-wal`]: 0o600,
    });
  });

  it('closes a folder and a store file left open by an earlier release', async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'data-folder-'));
    const dataDir = path.join(parent, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    await opened(dataDir);
    chmodSync(path.join(dataDir, SQLITE_FILE_NAME), 0o644);
    chmodSync(dataDir, 0o755);
    const modes = await opened(dataDir);
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modes[SQLITE_FILE_NAME]).toBe(0o600);
  });
});
