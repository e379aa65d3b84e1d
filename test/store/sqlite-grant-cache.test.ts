import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_GRANT_READS } from '../../src/store/auth/rows.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';
import { taskDraft } from './suite.js';

/** SQLite finds a token by its hash alone: the key names no account. */
const H1 = { hash: 'h1', accountId: null };

describe('sqlite token lookups', () => {
  let dir: string;
  let serving: SqliteStore;
  let admin: SqliteStore;
  let file: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-grants-'));
    file = path.join(dir, 'tasks.sqlite');
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

  it('keep a lookup across commits that change no token or account, and look again after any that does', async () => {
    const account = await admin.createAccount({ username: 'kept', passwordHash: null, timezone: 'UTC' });
    await admin.insertToken({ hash: 'h1', accountId: account.id, scope: 'write', name: '', expiresAt: null });
    const raw = new Database(file);
    try {
      const first = await serving.findToken(H1);
      expect(first).toMatchObject({ revoked: false });
      // Tasks written (the account's rev and usage move with them), a token used: nothing a lookup reads.
      await admin.write(account.id, async (tx) => {
        await tx.put('task', taskDraft('t1'));
      });
      raw.prepare('UPDATE tokens SET last_used = 1, name = ? WHERE hash = ?').run('renamed', 'h1');
      expect(await serving.findToken(H1)).toBe(first);

      // Every column the token check reads, each written by another connection: looked up again.
      let before = first;
      for (const [table, columns] of Object.entries(TOKEN_GRANT_READS)) {
        for (const column of columns) {
          raw.prepare(`UPDATE ${table} SET ${column} = ${column}`).run();
          const after = await serving.findToken(H1);
          expect(after, `${table}.${column}`).not.toBe(before);
          expect(after, `${table}.${column}`).toEqual(first);
          before = after;
        }
      }
      // A token added (this hash was unknown, and remembered so), and one removed.
      expect(await serving.findToken({ hash: 'h2', accountId: null })).toBeUndefined();
      raw
        .prepare("INSERT INTO tokens (hash, account_id, scope, name, created) VALUES ('h2', ?, 'read', '', 0)")
        .run(account.id);
      expect(await serving.findToken({ hash: 'h2', accountId: null })).toMatchObject({ scope: 'read' });
      raw.prepare("DELETE FROM tokens WHERE hash = 'h2'").run();
      expect(await serving.findToken({ hash: 'h2', accountId: null })).toBeUndefined();
    } finally {
      raw.close();
    }
  });
});
