import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SESSION_IDLE_MICROS } from '../../src/domain/auth.js';
import { microsFromMillis } from '../../src/domain/time.js';
import { AccountService } from '../../src/service/accounts.js';
import { hashSecret } from '../../src/service/secrets.js';
import { SignInService } from '../../src/service/sign-in.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';

const PASSWORD = 'correct horse battery';

// The sign-in use cases on a real SQLite store: what the HTTP tests cannot reach quickly.
describe('sign-in service', () => {
  let dir: string;
  let store: SqliteStore;
  let signIn: SignInService;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-sign-in-'));
    store = openSqliteStore({ file: path.join(dir, 'tasks.sqlite') });
    await store.migrate();
    signIn = new SignInService(store, false);
    await new AccountService(store).addUser('alice', PASSWORD, 'UTC');
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a session idle for 30 days is refused and deleted', async () => {
    const result = await signIn.signIn('alice', PASSWORD, '10.0.0.1');
    if (!result.ok) throw new Error('sign-in failed');
    expect((await signIn.accountOf(result.sessionId))?.username).toBe('alice');
    const hash = hashSecret(result.sessionId);
    const account = await store.findAccount('alice');
    // Make a session last seen just over 30 days ago, straight in the store.
    await store.auth.deleteSession(hash);
    await store.auth.createSession(hash, account?.id ?? 0, microsFromMillis(Date.now()) - SESSION_IDLE_MICROS - 1);
    expect(await signIn.accountOf(result.sessionId)).toBeUndefined();
    expect(await store.auth.findSession(hash)).toBeUndefined();
  });

  it('20 failures from one address throttle every username from it', async () => {
    for (let i = 0; i < 20; i += 1) expect((await signIn.signIn(`nobody${i}`, 'x', '10.0.0.2')).ok).toBe(false);
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.2')).ok).toBe(false);
    // Another address is not slowed by them.
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.3')).ok).toBe(true);
  });

  it('a person changes their own password with the current one; every other session ends', async () => {
    const first = await signIn.signIn('alice', PASSWORD, '10.0.0.4');
    const account = await store.findAccount('alice');
    if (!first.ok || account === undefined) throw new Error('sign-in failed');
    expect(await signIn.changePassword(account, 'wrong', 'a new passphrase')).toEqual({
      ok: false,
      message: 'the current password is wrong',
    });
    expect(await signIn.changePassword(account, PASSWORD, 'short')).toMatchObject({ ok: false });
    expect(await signIn.accountOf(first.sessionId)).toBeDefined();

    const changed = await signIn.changePassword(account, PASSWORD, 'a new passphrase');
    if (!changed.ok) throw new Error(changed.message);
    expect(await signIn.accountOf(first.sessionId)).toBeUndefined();
    expect((await signIn.accountOf(changed.sessionId))?.username).toBe('alice');
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.4')).ok).toBe(false);
    expect((await signIn.signIn('alice', 'a new passphrase', '10.0.0.4')).ok).toBe(true);
  });

  it('a disabled account cannot sign in, even with its password', async () => {
    await store.setDisabled('alice', true);
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.5')).ok).toBe(false);
  });
});
