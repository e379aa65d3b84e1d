import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresOptions, type PostgresStore } from '../../src/store/postgres/store.js';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { TEST_DATABASE_BASE_URL, createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { contextDraft, taskDraft } from './postgres-fixture.js';
import { SwitchableProxy } from './postgres-proxy.js';

/*
 * An unreachable, restarting or overloaded database must surface as StoreUnavailableError (E503),
 * never crash the process or hang, and the store must work again once the database is back.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function migratedDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const store = openPostgresStore({ url: database.url });
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
  return database;
}

function storeAt(url: string, options: Omit<PostgresOptions, 'url'> = {}): PostgresStore {
  const store = openPostgresStore({ ...options, url });
  cleanups.push(() => store.close());
  return store;
}

/** An admin connection to the test database, e.g. to take locks or end the store's sessions. */
async function adminClient(database: TestDatabase): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  cleanups.push(() => client.end());
  return client;
}

/** Ends the server sessions of the store (not the admin's own) like `pg_terminate_backend` by an operator. */
async function terminateStoreSessions(admin: pg.Client, state?: string): Promise<number> {
  const result = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() ' +
      "AND application_name = 'task-service' AND ($1::text IS NULL OR state = $1) ",
    [state ?? null],
  );
  for (const { pid } of result.rows) await admin.query('SELECT pg_terminate_backend($1)', [pid]);
  return result.rows.length;
}

describe('an unreachable server', () => {
  it('makes every operation fail with StoreUnavailableError', async () => {
    const store = storeAt('postgres://postgres@127.0.0.1:1/nothing', { connectTimeoutMs: 1_000 });
    const unavailable = expect.any(StoreUnavailableError);
    await expect(store.ping()).rejects.toEqual(unavailable);
    await expect(store.migrate()).rejects.toEqual(unavailable);
    await expect(store.findToken({ hash: 'x', accountId: 1 })).rejects.toEqual(unavailable);
    await expect(store.get(1, 'task', 'x')).rejects.toEqual(unavailable);
    await expect(store.list(1, 'task', { includeDeleted: false })).rejects.toEqual(unavailable);
    await expect(store.write(1, async () => undefined)).rejects.toEqual(unavailable);
    await expect(store.purge(0)).rejects.toEqual(unavailable);
  });
});

describe('a server that goes away and comes back', () => {
  it('fails what is in flight and serves again afterwards', async () => {
    const database = await migratedDatabase();
    const base = new URL(TEST_DATABASE_BASE_URL);
    const proxy = await SwitchableProxy.start({ host: base.hostname, port: Number(base.port || 5432) });
    cleanups.push(() => proxy.down());
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    const store = storeAt(url.toString(), { poolSize: 3, connectTimeoutMs: 1_000 });

    const account = await store.createAccount({ username: 'restart', passwordHash: null, timezone: 'UTC' });
    await store.write(account.id, (tx) => tx.put('context', contextDraft('before')));
    const snapshot = await store.list(account.id, 'context', { includeDeleted: false });
    const hold = store.write(account.id, async (tx) => {
      await tx.put('task', taskDraft('in-flight'));
      await proxy.down();
      await tx.put('task', taskDraft('after-cut'));
    });

    await expect(hold).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(snapshot.nextBatch()).rejects.toBeInstanceOf(StoreUnavailableError);
    await snapshot.close();
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.get(account.id, 'context', 'before')).rejects.toBeInstanceOf(StoreUnavailableError);

    await proxy.up();
    await store.ping();
    expect(await store.get(account.id, 'task', 'in-flight')).toBeUndefined();
    // More sequential transactions than the pool holds: no connection leaked during the outage.
    for (let round = 0; round < 5; round += 1) {
      const context = await store.write(account.id, (tx) => tx.put('context', contextDraft(`after-${round}`)));
      expect(context.rev).toBe(2 + round);
    }
  });

  it('survives the server ending idle and busy sessions', async () => {
    const database = await migratedDatabase();
    const admin = await adminClient(database);
    const store = storeAt(database.url, { poolSize: 4 });
    const account = await store.createAccount({ username: 'killed', passwordHash: null, timezone: 'UTC' });
    await store.write(account.id, (tx) => tx.put('context', contextDraft('c1')));

    // A snapshot's session ended between batches.
    const snapshot = await store.list(account.id, 'context', { includeDeleted: false });
    expect(await terminateStoreSessions(admin, 'idle in transaction')).toBe(1);
    await expect(snapshot.nextBatch()).rejects.toBeInstanceOf(StoreUnavailableError);
    await snapshot.close();

    // Idle pooled sessions ended (an operator's kill, a failover): the pool drops them quietly.
    await Promise.all([store.ping(), store.ping(), store.ping()]);
    expect(await terminateStoreSessions(admin)).toBeGreaterThan(0);
    await sleep(100);
    await store.ping();
    const written = await store.write(account.id, (tx) => tx.put('context', contextDraft('c2')));
    expect(written.rev).toBe(2);
  });
});

describe('an overloaded server', () => {
  it('gives up waiting for a pooled connection instead of hanging', async () => {
    const database = await migratedDatabase();
    const account = await storeAt(database.url).createAccount({
      username: 'busy',
      passwordHash: null,
      timezone: 'UTC',
    });
    const store = storeAt(database.url, { poolSize: 1, connectTimeoutMs: 300 });
    // Its one connection is opened within those 300 ms too, which a busy machine may miss (CI did):
    // the snapshot that holds it may take a few tries.
    let snapshot: Awaited<ReturnType<PostgresStore['list']>> | undefined;
    for (let tries = 0; snapshot === undefined && tries < 20; tries++) {
      snapshot = await store.list(account.id, 'task', { includeDeleted: false }).catch((error: unknown) => {
        if (!(error instanceof StoreUnavailableError)) throw error;
        return undefined;
      });
    }
    if (snapshot === undefined) throw new Error('no connection opened within 300 ms in 20 tries');
    const started = Date.now();
    await expect(store.get(account.id, 'task', 'x')).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(3_000);
    await snapshot.close();
    expect(await store.get(account.id, 'task', 'x')).toBeUndefined();
  });

  it('cancels statements that run past the statement timeout', async () => {
    const database = await migratedDatabase();
    const admin = await adminClient(database);
    const store = storeAt(database.url, { statementTimeoutMs: 300 });
    const account = await store.createAccount({ username: 'slow', passwordHash: null, timezone: 'UTC' });

    // Another session holds the account's lock, so the write's first statement cannot finish.
    await admin.query('BEGIN');
    await admin.query('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [account.id]);
    await expect(store.write(account.id, (tx) => tx.put('task', taskDraft('t')))).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    await admin.query('ROLLBACK');
    expect((await store.write(account.id, (tx) => tx.put('task', taskDraft('t')))).rev).toBe(1);
  });

  it('leaves ordinary errors alone', async () => {
    const database = await migratedDatabase();
    const store = storeAt(database.url);
    const account = await store.createAccount({ username: 'plain', passwordHash: null, timezone: 'UTC' });
    const failing = store.insertToken({
      hash: 'h',
      accountId: account.id + 1,
      scope: 'read',
      name: '',
      expiresAt: null,
    });
    await expect(failing).rejects.not.toBeInstanceOf(StoreUnavailableError);
    await expect(failing).rejects.toThrow(/foreign key/);
  });
});
