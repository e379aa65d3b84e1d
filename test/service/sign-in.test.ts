import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SESSION_IDLE_MICROS } from '../../src/domain/auth.js';
import { MICROS_PER_DAY, nowMicros, type Micros } from '../../src/domain/time.js';
import { AccountService } from '../../src/service/accounts.js';
import { secretKeyOf } from '../../src/service/secrets.js';
import { SignInService } from '../../src/service/sign-in.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/store.js';

const PASSWORD = 'correct horse battery';

// The sign-in use cases on a real SQLite store: what the HTTP tests cannot reach quickly.
describe('sign-in service', () => {
  let dir: string;
  let store: SqliteStore;
  let signIn: SignInService;
  let accounts: AccountService;
  /** The services' clock: a test moves it instead of waiting, or of ageing rows in the store. */
  let now: Micros;

  beforeEach(async () => {
    now = nowMicros();
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-sign-in-'));
    store = openSqliteStore({ file: path.join(dir, 'tasks.sqlite') });
    await store.migrate();
    signIn = new SignInService(store, false, () => now);
    accounts = new AccountService(store, () => now);
    await accounts.addUser('alice', PASSWORD, 'UTC');
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a session idle for 30 days is refused and deleted', async () => {
    const result = await signIn.signIn('alice', PASSWORD, '10.0.0.1');
    if (!result.ok) throw new Error('sign-in failed');
    expect((await signIn.accountOf(result.sessionId))?.username).toBe('alice');
    const key = secretKeyOf(result.sessionId);
    expect(key.accountId).toBe(result.account.id);
    now += SESSION_IDLE_MICROS - 1;
    expect((await signIn.accountOf(result.sessionId))?.username).toBe('alice');
    // Seen again just now: idle from here on.
    now += SESSION_IDLE_MICROS;
    expect(await signIn.accountOf(result.sessionId)).toBeUndefined();
    expect(await store.auth.findSession(key)).toBeUndefined();
  });

  it('a session in use ends a year after the sign-in all the same (issue 21 item 6)', async () => {
    const result = await signIn.signIn('alice', PASSWORD, '10.0.0.1');
    if (!result.ok) throw new Error('sign-in failed');
    const key = secretKeyOf(result.sessionId);
    // Used every 20 days, never idle for 30: live until its year is over.
    for (let day = 20; day < 365; day += 20) {
      now += 20 * MICROS_PER_DAY;
      expect((await signIn.accountOf(result.sessionId))?.username, `day ${day}`).toBe('alice');
    }
    now += 5 * MICROS_PER_DAY - 1;
    expect((await signIn.accountOf(result.sessionId))?.username).toBe('alice');
    now += 1;
    expect(await signIn.accountOf(result.sessionId)).toBeUndefined();
    expect(await store.auth.findSession(key)).toBeUndefined();
  });

  it('a token made to expire in a day is refused once the day is over', async () => {
    const token = await accounts.createToken('alice', 'write', 'for a day', 1);
    now += MICROS_PER_DAY - 1;
    expect(await accounts.authenticate(token)).toMatchObject({ ok: true });
    now += 1;
    expect(await accounts.authenticate(token)).toMatchObject({ ok: false, denial: 'unauthenticated' });
  });

  it('20 failures from one address throttle every username from it', async () => {
    for (let i = 0; i < 20; i += 1) expect((await signIn.signIn(`nobody${i}`, 'x', '10.0.0.2')).ok).toBe(false);
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.2')).ok).toBe(false);
    // Another address is not slowed by them.
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.3')).ok).toBe(true);
  });

  it('a stranger guessing from one address never holds back the owner signing in from another (issue 21 item 3)', async () => {
    // One wrong try every 0.2 s for 30 s from one address; the owner tries every 2 s from theirs.
    let ownerIn = 0;
    let strangerIn = 0;
    for (let tick = 0; tick < 150; tick += 1) {
      if ((await signIn.signIn('alice', `guess ${tick}`, '203.0.113.9')).ok) strangerIn += 1;
      if (tick % 10 === 9 && (await signIn.signIn('alice', PASSWORD, '10.0.0.7')).ok) ownerIn += 1;
      now += 200_000;
    }
    expect([ownerIn, strangerIn]).toEqual([15, 0]);
    // The stranger's address stays slowed: even the right password is refused from it.
    expect((await signIn.signIn('alice', PASSWORD, '203.0.113.9')).ok).toBe(false);
  });

  it('5 failures for one username from one address slow that username from that address only', async () => {
    for (let i = 0; i < 5; i += 1) expect((await signIn.signIn('alice', 'wrong', '10.0.0.8')).ok).toBe(false);
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.8')).ok).toBe(false);
    // After the delay (a second after the fifth failure), the right password works again.
    now += 1_000_000;
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.8')).ok).toBe(true);
  });

  it('a person changes their own password with the current one; every other session ends', async () => {
    const first = await signIn.signIn('alice', PASSWORD, '10.0.0.4');
    const account = await store.findAccount('alice');
    if (!first.ok || account === undefined) throw new Error('sign-in failed');
    const firstToken = await signIn.appTokenFor(first.sessionId);
    if (firstToken === undefined) throw new Error('no app token');
    expect(await signIn.changePassword(account, 'wrong', 'a new passphrase', '10.0.0.4')).toEqual({
      ok: false,
      message: 'the current password is wrong',
    });
    expect(await signIn.changePassword(account, PASSWORD, 'short', '10.0.0.4')).toMatchObject({ ok: false });
    expect(await signIn.accountOf(first.sessionId)).toBeDefined();

    const changed = await signIn.changePassword(account, PASSWORD, 'a new passphrase', '10.0.0.4');
    if (!changed.ok) throw new Error(changed.message);
    expect(await signIn.accountOf(first.sessionId)).toBeUndefined();
    expect((await signIn.accountOf(changed.sessionId))?.username).toBe('alice');
    // The old session's app token ended with it; the new one works.
    expect(await accounts.authenticate(firstToken.token)).toMatchObject({ ok: false, denial: 'unauthenticated' });
    expect(await accounts.authenticate(changed.appToken.token)).toMatchObject({ ok: true });
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.4')).ok).toBe(false);
    expect((await signIn.signIn('alice', 'a new passphrase', '10.0.0.4')).ok).toBe(true);
  });

  it("the web app's token ends when its session is signed out", async () => {
    const signedIn = await signIn.signIn('alice', PASSWORD, '10.0.0.6');
    if (!signedIn.ok) throw new Error('sign-in failed');
    const token = await signIn.appTokenFor(signedIn.sessionId);
    if (token === undefined) throw new Error('no app token');
    expect(token.token).toMatch(/^[0-9a-f]{16}[A-Za-z0-9_-]{43}$/);
    expect(await accounts.authenticate(token.token)).toMatchObject({ ok: true, grant: { scope: 'write' } });
    await signIn.signOut(signedIn.sessionId);
    expect(await accounts.authenticate(token.token)).toMatchObject({ ok: false, denial: 'unauthenticated' });
    expect(await signIn.appTokenFor(signedIn.sessionId)).toBeUndefined();
    expect(await signIn.appTokenFor('')).toBeUndefined();
  });

  it('wrong current passwords are throttled like sign-ins', async () => {
    const account = await store.findAccount('alice');
    if (account === undefined) throw new Error('no alice');
    for (let i = 0; i < 5; i += 1) {
      expect((await signIn.changePassword(account, `guess ${i}`, 'a new passphrase', '10.0.0.7')).ok).toBe(false);
    }
    // Throttled now: even the right password is refused, with the same message.
    expect(await signIn.changePassword(account, PASSWORD, 'a new passphrase', '10.0.0.7')).toEqual({
      ok: false,
      message: 'the current password is wrong',
    });
  });

  it('a disabled account cannot sign in, even with its password', async () => {
    await store.setDisabled('alice', true);
    expect((await signIn.signIn('alice', PASSWORD, '10.0.0.5')).ok).toBe(false);
  });
});
