import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/domain/account.js';
import { tokenIdOf } from '../../src/domain/auth.js';
import type { SecretKey } from '../../src/domain/secret-key.js';
import { microsFromMillis } from '../../src/domain/time.js';
import type { Store } from '../../src/store/store.js';

let counter = 0;
/** A value unique within the run: usernames, hashes and ids of one test never meet another's. */
function unique(prefix: string): string {
  counter += 1;
  return `${prefix}${String(counter).padStart(6, '0')}${Math.random().toString(16).slice(2, 10)}`;
}

/** A 64-hex "hash" of a made-up secret. */
function fakeHash(): string {
  return unique('')
    .replace(/[^0-9a-f]/g, '0')
    .padEnd(64, 'a')
    .slice(0, 64);
}

const now = (): number => microsFromMillis(Date.now());

/** How the store is asked for a secret of the account: by its hash, under the account it names. */
function key(hash: string, account: Account): SecretKey {
  return { hash, accountId: account.id };
}

/**
 * The AuthStore contract, checked through the Store interface on every engine. One store serves
 * the whole suite (each test makes its own accounts and clients), so the suite stays quick.
 */
export function authStoreSuite(
  name: string,
  open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>,
): void {
  describe(`${name} auth store`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ store, cleanup } = await open());
      await store.migrate();
    });
    afterAll(async () => {
      await cleanup();
    });

    async function newAccount(): Promise<Account> {
      return store.createAccount({ username: unique('user'), passwordHash: 'old-hash', timezone: 'UTC' });
    }

    async function newClient(): Promise<string> {
      const id = unique('c').padEnd(24, '0').slice(0, 24);
      await store.auth.insertClient({
        id,
        name: 'Vim plugin',
        secretHash: fakeHash(),
        redirectUris: ['https://example.com/cb', 'http://127.0.0.1/cb'],
        legacyImplicit: true,
        created: now(),
      });
      return id;
    }

    it('keeps a password hash, and a new password ends every session of the account', async () => {
      const account = await newAccount();
      const other = await newAccount();
      expect(await store.auth.findCredentials(account.username)).toEqual({ account, passwordHash: 'old-hash' });
      const [mine, theirs] = [fakeHash(), fakeHash()];
      await store.auth.createSession(mine, account.id, now());
      await store.auth.createSession(theirs, other.id, now());
      expect((await store.auth.findSession(key(mine, account)))?.account.id).toBe(account.id);

      expect(await store.auth.setPassword(account.username, 'new-hash', now())).toBe(true);
      expect((await store.auth.findCredentials(account.username))?.passwordHash).toBe('new-hash');
      expect(await store.auth.findSession(key(mine, account))).toBeUndefined();
      expect((await store.auth.findSession(key(theirs, other)))?.account.id).toBe(other.id);
      expect(await store.auth.setPassword(unique('nobody'), 'x', now())).toBe(false);
      expect(await store.auth.findCredentials(unique('nobody'))).toBeUndefined();
    });

    it('shows a disabled account through its session, and lists accounts', async () => {
      const account = await newAccount();
      const hash = fakeHash();
      await store.auth.createSession(hash, account.id, now());
      await store.setDisabled(account.username, true);
      expect((await store.auth.findSession(key(hash, account)))?.account.disabled).toBe(true);
      const listed = await store.auth.listAccounts();
      expect(listed.find((a) => a.id === account.id)?.disabled).toBe(true);
    });

    it('touches, deletes and forgets sessions', async () => {
      const account = await newAccount();
      const [hash, old] = [fakeHash(), fakeHash()];
      const t = now();
      await store.auth.createSession(hash, account.id, t);
      await store.auth.createSession(old, account.id, t - 1_000_000_000);
      await store.auth.touchSession(key(hash, account), t + 5);
      expect(await store.auth.findSession(key(hash, account))).toMatchObject({ created: t, lastSeen: t + 5 });
      expect(await store.auth.forgetSessions(t - 1, t)).toBeGreaterThanOrEqual(1);
      expect(await store.auth.findSession(key(old, account))).toBeUndefined();
      await store.auth.deleteSession(key(hash, account), t);
      expect(await store.auth.findSession(key(hash, account))).toBeUndefined();
    });

    it("binds the web app's tokens to their session: they end with it, and only a live session gets one", async () => {
      const account = await newAccount();
      const other = await newAccount();
      const t = now();
      const [signedOut, passwordChanged, idle, otherSession] = [fakeHash(), fakeHash(), fakeHash(), fakeHash()];
      await store.auth.createSession(signedOut, account.id, t);
      await store.auth.createSession(passwordChanged, account.id, t);
      await store.auth.createSession(idle, account.id, t - 1_000_000_000);
      await store.auth.createSession(otherSession, other.id, t);
      const tokenOf = async (sessionHash: string, accountId = account.id): Promise<string> => {
        const hash = fakeHash();
        const made = await store.auth.insertSessionToken(
          { hash, accountId, sessionHash, name: 'Web app', expiresAt: t + 1_000_000 },
          t,
        );
        expect(made).toBe(true);
        return hash;
      };
      const [a, b, c, d] = [
        await tokenOf(signedOut),
        await tokenOf(passwordChanged),
        await tokenOf(idle),
        await tokenOf(otherSession, other.id),
      ];
      const personal = fakeHash();
      await store.insertToken({ hash: personal, accountId: account.id, scope: 'read', name: 'cli', expiresAt: null });
      expect(await store.findToken(key(a, account))).toMatchObject({
        scope: 'write',
        revoked: false,
        account: { id: account.id },
      });
      const listed = await store.auth.listTokens(account.id);
      expect(listed.filter((token) => token.sessionBound).map((token) => token.id)).toEqual(
        expect.arrayContaining([tokenIdOf(a), tokenIdOf(b), tokenIdOf(c)]),
      );
      expect(listed.find((token) => token.id === tokenIdOf(personal))?.sessionBound).toBe(false);
      // Another account's session, or none: nothing is made.
      expect(
        await store.auth.insertSessionToken(
          { hash: fakeHash(), accountId: account.id, sessionHash: otherSession, name: 'x', expiresAt: t },
          t,
        ),
      ).toBe(false);
      expect(
        await store.auth.insertSessionToken(
          { hash: fakeHash(), accountId: account.id, sessionHash: fakeHash(), name: 'x', expiresAt: t },
          t,
        ),
      ).toBe(false);

      await store.auth.deleteSession(key(signedOut, account), t);
      expect((await store.findToken(key(a, account)))?.revoked).toBe(true);
      expect((await store.findToken(key(b, account)))?.revoked).toBe(false);
      await store.auth.forgetSessions(t - 1, t);
      expect((await store.findToken(key(c, account)))?.revoked).toBe(true);
      expect((await store.findToken(key(b, account)))?.revoked).toBe(false);
      await store.auth.setPassword(account.username, 'newer-hash', t);
      expect((await store.findToken(key(b, account)))?.revoked).toBe(true);
      // Tokens not made for a session, and other accounts' sessions, are left alone.
      expect((await store.findToken(key(personal, account)))?.revoked).toBe(false);
      expect((await store.findToken(key(d, other)))?.revoked).toBe(false);
    });

    it('lists the apps an account allowed, with their last use', async () => {
      const account = await newAccount();
      const [first, second] = [await newClient(), await newClient()];
      const t = now();
      await store.auth.saveConsent(account.id, first, 'read', t);
      await store.auth.saveConsent(account.id, second, 'write', t + 1);
      const token = fakeHash();
      await store.auth.insertIssuedToken(
        {
          hash: token,
          accountId: account.id,
          scope: 'read',
          name: 'Vim plugin',
          expiresAt: null,
          clientId: first,
          grantId: null,
        },
        t,
      );
      await store.auth.touchTokens([{ accountId: account.id, hash: token, at: t + 5 }]);
      const apps = await store.auth.listConnectedApps(account.id);
      expect(apps).toEqual(
        expect.arrayContaining([
          { clientId: first, name: 'Vim plugin', scope: 'read', allowed: t, lastUsed: t + 5 },
          { clientId: second, name: 'Vim plugin', scope: 'write', allowed: t + 1, lastUsed: null },
        ]),
      );
      expect(apps).toHaveLength(2);
      expect(await store.auth.listConnectedApps((await newAccount()).id)).toEqual([]);
    });

    it('registers, lists and removes clients; removal revokes what the client holds', async () => {
      const account = await newAccount();
      const clientId = await newClient();
      expect(await store.auth.findClient(clientId)).toMatchObject({
        id: clientId,
        name: 'Vim plugin',
        redirectUris: ['https://example.com/cb', 'http://127.0.0.1/cb'],
        legacyImplicit: true,
      });
      expect((await store.auth.listClients()).map((c) => c.id)).toContain(clientId);
      const [token, refresh, cliToken] = [fakeHash(), fakeHash(), fakeHash()];
      await store.auth.insertIssuedToken(
        {
          hash: token,
          accountId: account.id,
          scope: 'write',
          name: 'Vim plugin',
          expiresAt: null,
          clientId,
          grantId: 'g1' + clientId,
        },
        now(),
      );
      await store.auth.insertRefreshToken(
        refresh,
        { accountId: account.id, clientId, scope: 'write', grantId: 'g1' + clientId },
        now(),
      );
      await store.insertToken({ hash: cliToken, accountId: account.id, scope: 'read', name: 'cli', expiresAt: null });
      await store.auth.saveConsent(account.id, clientId, 'write', now());

      expect(await store.auth.removeClient(clientId, now())).toBe(true);
      expect(await store.auth.removeClient(clientId, now())).toBe(false);
      expect(await store.auth.findClient(clientId)).toBeUndefined();
      expect((await store.findToken(key(token, account)))?.revoked).toBe(true);
      expect((await store.auth.findRefreshToken(key(refresh, account)))?.revoked).toBe(true);
      expect((await store.findToken(key(cliToken, account)))?.revoked).toBe(false);
      expect(await store.auth.findConsent(account.id, clientId)).toBeUndefined();
    });

    it('remembers consents, widening them', async () => {
      const account = await newAccount();
      const clientId = await newClient();
      expect(await store.auth.findConsent(account.id, clientId)).toBeUndefined();
      await store.auth.saveConsent(account.id, clientId, 'read', now());
      expect(await store.auth.findConsent(account.id, clientId)).toBe('read');
      await store.auth.saveConsent(account.id, clientId, 'write', now());
      expect(await store.auth.findConsent(account.id, clientId)).toBe('write');
    });

    it('hands a code out once: the second taker learns it was used', async () => {
      const account = await newAccount();
      const clientId = await newClient();
      const code = {
        hash: fakeHash(),
        clientId,
        accountId: account.id,
        redirectUri: 'https://example.com/cb',
        scope: 'read' as const,
        challenge: 'c'.repeat(43),
        expiresAt: now() + 60_000_000,
      };
      await store.auth.insertCode(code);
      const [first, second] = await Promise.all([
        store.auth.takeCode(key(code.hash, account), now()),
        store.auth.takeCode(key(code.hash, account), now()),
      ]);
      expect(first?.code).toEqual(code);
      expect([first?.usedBefore, second?.usedBefore].sort()).toEqual([false, true]);
      expect(await store.auth.takeCode(key(fakeHash(), account), now())).toBeUndefined();
      expect(await store.auth.forgetCodes(code.expiresAt + 1)).toBeGreaterThanOrEqual(1);
      expect(await store.auth.takeCode(key(code.hash, account), now())).toBeUndefined();
    });

    it('spends a refresh token once and revokes a whole grant', async () => {
      const account = await newAccount();
      const clientId = await newClient();
      const grantId = unique('grant');
      const [access, refresh] = [fakeHash(), fakeHash()];
      await store.auth.insertIssuedToken(
        { hash: access, accountId: account.id, scope: 'read', name: 'app', expiresAt: null, clientId, grantId },
        now(),
      );
      await store.auth.insertRefreshToken(refresh, { accountId: account.id, clientId, scope: 'read', grantId }, now());
      expect(await store.auth.findRefreshToken(key(refresh, account))).toEqual({
        accountId: account.id,
        clientId,
        scope: 'read',
        grantId,
        revoked: false,
      });
      expect(await store.auth.findIssuedToken(key(access, account))).toEqual({ clientId, grantId });
      const spent = await Promise.all([
        store.auth.spendRefreshToken(key(refresh, account), now()),
        store.auth.spendRefreshToken(key(refresh, account), now()),
      ]);
      expect(spent.sort()).toEqual([false, true]);

      const next = fakeHash();
      await store.auth.insertRefreshToken(next, { accountId: account.id, clientId, scope: 'read', grantId }, now());
      await store.auth.revokeGrant(account.id, grantId, now());
      expect((await store.findToken(key(access, account)))?.revoked).toBe(true);
      expect((await store.auth.findRefreshToken(key(next, account)))?.revoked).toBe(true);
    });

    it('lists tokens without secrets, records last use, and revokes by id and by name', async () => {
      const account = await newAccount();
      const other = await newAccount();
      const [a, b, c] = [fakeHash(), fakeHash(), fakeHash()];
      await store.insertToken({ hash: a, accountId: account.id, scope: 'write', name: 'laptop', expiresAt: null });
      await store.insertToken({ hash: b, accountId: account.id, scope: 'read', name: 'phone', expiresAt: 42 });
      await store.insertToken({ hash: c, accountId: other.id, scope: 'read', name: 'phone', expiresAt: null });
      await store.auth.touchTokens([
        { accountId: account.id, hash: a, at: 777 },
        { accountId: other.id, hash: fakeHash(), at: 1 },
      ]);
      await store.auth.touchTokens([{ accountId: account.id, hash: a, at: 500 }]); // an older use does not move it back
      await store.auth.touchTokens([]);

      const listed = await store.auth.listTokens(account.id);
      expect(listed).toHaveLength(2);
      expect(listed.find((t) => t.name === 'laptop')).toMatchObject({
        id: tokenIdOf(a),
        scope: 'write',
        clientId: null,
        lastUsed: 777,
        expiresAt: null,
        revoked: false,
      });
      expect(JSON.stringify(listed)).not.toContain(a);

      expect(await store.auth.revokeTokenById(tokenIdOf(a), now(), other.id)).toBe(false);
      expect(await store.auth.revokeTokenById(tokenIdOf(a), now())).toBe(true);
      expect((await store.findToken(key(a, account)))?.revoked).toBe(true);
      expect(await store.auth.revokeTokenById('0'.repeat(16), now())).toBe(false);

      expect(await store.auth.revokeTokensByName(account.id, 'phone', now())).toBe(1);
      expect(await store.auth.revokeTokensByName(account.id, 'phone', now())).toBe(0);
      expect((await store.findToken(key(b, account)))?.revoked).toBe(true);
      expect((await store.findToken(key(c, other)))?.revoked).toBe(false);
    });

    it('revokes what an account gave one client', async () => {
      const account = await newAccount();
      const clientId = await newClient();
      const token = fakeHash();
      await store.auth.insertIssuedToken(
        {
          hash: token,
          accountId: account.id,
          scope: 'write',
          name: 'app',
          expiresAt: null,
          clientId,
          grantId: unique('g'),
        },
        now(),
      );
      await store.auth.saveConsent(account.id, clientId, 'write', now());
      await store.auth.revokeClientAccess(account.id, clientId, now());
      expect((await store.findToken(key(token, account)))?.revoked).toBe(true);
      expect(await store.auth.findConsent(account.id, clientId)).toBeUndefined();
    });

    it('counts failures per key within a window, clears and forgets them', async () => {
      const key = unique('user:');
      expect(await store.auth.failuresSince(key, 0)).toEqual({ count: 0, last: 0 });
      await store.auth.recordFailure(key, 100);
      await store.auth.recordFailure(key, 200);
      await store.auth.recordFailure(key, 300);
      expect(await store.auth.failuresSince(key, 150)).toEqual({ count: 2, last: 300 });
      expect(await store.auth.forgetFailures(250)).toBeGreaterThanOrEqual(2);
      expect(await store.auth.failuresSince(key, 0)).toEqual({ count: 1, last: 300 });
      await store.auth.clearFailures(key);
      expect(await store.auth.failuresSince(key, 0)).toEqual({ count: 0, last: 0 });
    });
  });
}
