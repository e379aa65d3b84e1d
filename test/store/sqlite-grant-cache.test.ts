import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';

/** SQLite finds a token by its hash alone: the key names no account. */
const H1 = { hash: 'h1', accountId: null };

describe('sqlite token lookups', () => {
  let dir: string;
  let serving: SqliteStore;
  let admin: SqliteStore;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-grants-'));
    const file = path.join(dir, 'tasks.sqlite');
    serving = openSqliteStore({ file });
    await serving.migrate();
    admin = openSqliteStore({ file });
  });
  afterEach(async () => {
    await serving.close();
    await admin.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('see a revocation, a disabled account and a new token made by another connection at once', async () => {
    const account = await admin.createAccount({ username: 'remote', passwordHash: null, timezone: 'UTC' });
    expect(await serving.findToken(H1)).toBeUndefined();
    await admin.insertToken({ hash: 'h1', accountId: account.id, scope: 'write', name: '', expiresAt: null });
    expect(await serving.findToken(H1)).toMatchObject({ revoked: false, account: { disabled: false } });
    expect(await serving.findToken(H1)).toMatchObject({ revoked: false });

    await admin.setDisabled('remote', true);
    expect(await serving.findToken(H1)).toMatchObject({ account: { disabled: true } });

    await admin.revokeToken(H1);
    expect(await serving.findToken(H1)).toMatchObject({ revoked: true });
  });
});
