import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsernameTakenError } from '../../src/domain/errors.js';
import { nowMicros } from '../../src/domain/time.js';
import { AccountService } from '../../src/service/accounts.js';
import { hashSecret, secretKeyOf } from '../../src/service/secrets.js';
import { SignInService } from '../../src/service/sign-in.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

/*
 * Migration 7 keys every secret by (account, hash). Secrets handed out before it name no account,
 * or (64 random hex) one chosen by chance: they must keep working, through `legacy_secrets`.
 */

const base64urlSecret = (): string => randomBytes(32).toString('base64url');
/** 64 random hex whose first 16 digits happen to be a small number: it names account `id`. */
const hexSecretNaming = (id: number): string => id.toString(16).padStart(16, '0') + randomBytes(24).toString('hex');

let database: TestDatabase;
let store: PostgresStore;
const old = {
  cliToken: base64urlSecret(),
  appToken: hexSecretNaming(2),
  session: base64urlSecret(),
  code: base64urlSecret(),
  refresh: randomBytes(32).toString('hex'),
};
let alice = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url });
  try {
    await applyMigrations(
      pool,
      MIGRATIONS.filter((migration) => migration.version <= 6),
    );
    const accountIds: number[] = [];
    for (const name of ['alice', 'bob']) {
      const result = await pool.query<{ id: string }>(
        `INSERT INTO accounts (username, nickname, timezone, language, week_start, created, updated)
         VALUES ($1, $1, 'UTC', 'en', 1, 1, 1) RETURNING id`,
        [name],
      );
      accountIds.push(Number(result.rows[0]?.id));
    }
    alice = accountIds[0] ?? 0;
    expect(accountIds).toEqual([1, 2]);
    const far = 4_000_000_000_000_000;
    await pool.query(
      `INSERT INTO tokens (hash, account_id, scope, name, created, client_id, grant_id)
       VALUES ($1, $3, 'write', 'cli', 1, NULL, NULL), ($2, $3, 'read', 'app', 1, 'c1', 'g1')`,
      [hashSecret(old.cliToken), hashSecret(old.appToken), alice],
    );
    await pool.query('INSERT INTO sessions (hash, account_id, created, last_seen) VALUES ($1, $2, $3, $3)', [
      hashSecret(old.session),
      alice,
      Date.now() * 1000,
    ]);
    await pool.query(
      `INSERT INTO oauth_codes (hash, client_id, account_id, redirect_uri, scope, expires_at)
       VALUES ($1, 'c1', $2, 'https://example.com/cb', 'read', $3)`,
      [hashSecret(old.code), alice, far],
    );
    await pool.query(
      `INSERT INTO refresh_tokens (hash, account_id, client_id, scope, grant_id, created)
       VALUES ($1, $2, 'c1', 'read', 'g1', 1)`,
      [hashSecret(old.refresh), alice],
    );
  } finally {
    await pool.end();
  }
  store = openPostgresStore({ url: database.url });
  await store.migrate();
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

describe('secrets made before migration 7', () => {
  it('are found under their account, also when their first digits name another one', async () => {
    expect(secretKeyOf(old.cliToken).accountId).toBeNull();
    expect(secretKeyOf(old.appToken).accountId).toBe(2);
    const accounts = new AccountService(store, nowMicros);
    for (const token of [old.cliToken, old.appToken]) {
      const answer = await accounts.authenticate(token);
      expect(answer.ok && answer.grant.account.username).toBe('alice');
    }
    expect((await new SignInService(store, false, nowMicros).accountOf(old.session))?.id).toBe(alice);
    expect(await store.auth.findRefreshToken(secretKeyOf(old.refresh))).toMatchObject({
      accountId: alice,
      grantId: 'g1',
    });
    expect((await store.auth.takeCode(secretKeyOf(old.code), 1))?.code.accountId).toBe(alice);
  });

  it('are revoked as before', async () => {
    const accounts = new AccountService(store, nowMicros);
    const token = old.cliToken;
    await accounts.revokeToken(token);
    expect(await accounts.authenticate(token)).toEqual({ ok: false, denial: 'unauthenticated' });
  });
});

describe('names and new secrets after migration 7', () => {
  it('finds accounts by name through the directory, which keeps names unique', async () => {
    expect((await store.findAccount('bob'))?.id).toBe(2);
    await expect(
      store.createAccount({ username: 'alice', passwordHash: null, timezone: 'UTC' }),
    ).rejects.toBeInstanceOf(UsernameTakenError);
  });

  it('finds a new token by the account it names, without the directory of older secrets', async () => {
    const accounts = new AccountService(store, nowMicros);
    const token = await accounts.createToken('alice', 'write', 'new', null);
    expect(secretKeyOf(token).accountId).toBe(alice);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      await admin.query('DROP TABLE legacy_secrets');
    } finally {
      await admin.end();
    }
    const answer = await accounts.authenticate(token);
    expect(answer.ok && answer.grant.account.id).toBe(alice);
  });
});
