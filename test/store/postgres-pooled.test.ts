import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { startPgBouncer, type PgBouncer } from '../support/pgbouncer.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { taskDraft } from './postgres-fixture.js';

/*
 * Behind PgBouncer in transaction mode (--database-pooled) the server session has only the role's
 * defaults, here none at all: the transactions the store holds open for a while must still be
 * cut by the server's statement timeout, which they set for themselves.
 */

/** pg's error for a statement the server cancelled; a statement left to run would end otherwise. */
const QUERY_CANCELED = '57014';

function sqlStateOf(error: unknown): string | undefined {
  const cause: unknown = error instanceof Error ? error.cause : undefined;
  return cause instanceof pg.DatabaseError ? cause.code : undefined;
}

describe('the PostgreSQL store through PgBouncer in transaction mode', () => {
  let bouncer: PgBouncer | undefined;
  let database: TestDatabase | undefined;
  let store: PostgresStore | undefined;
  let admin: pg.Client | undefined;

  beforeAll(async () => {
    bouncer = await startPgBouncer();
    database = await createTestDatabase();
  });
  afterEach(async () => {
    await admin?.end();
    await store?.close();
  });
  afterAll(async () => {
    await database?.drop();
    await bouncer?.stop();
  });

  /** A store on the test database through PgBouncer, whose statements may run 300 ms. */
  function pooledStore(): PostgresStore {
    if (bouncer === undefined || database === undefined) throw new Error('PgBouncer has not started');
    store = openPostgresStore({ url: bouncer.route(database.url), pooled: true, statementTimeoutMs: 300 });
    return store;
  }

  /** A direct connection holding `lock` in a transaction; the test rolls it back. */
  async function blockedBy(lock: string, params: unknown[] = []): Promise<pg.Client> {
    admin = new pg.Client({ connectionString: database?.url });
    await admin.connect();
    await admin.query('BEGIN');
    await admin.query(lock, params);
    return admin;
  }

  it('cancels a list batch that waits past the statement timeout', async () => {
    const store = pooledStore();
    await store.migrate();
    const account = await store.createAccount({ username: 'lister', passwordHash: null, timezone: 'UTC' });
    await store.write(account.id, (tx) => tx.put('task', taskDraft('t')));
    const snapshot = await store.list(account.id, 'task', { includeDeleted: false });
    const admin = await blockedBy('LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE');
    const failed = await snapshot.nextBatch().then(
      () => undefined,
      (error: unknown) => error,
    );
    await snapshot.close();
    await admin.query('ROLLBACK');
    expect(failed).toBeInstanceOf(StoreUnavailableError);
    expect(sqlStateOf(failed)).toBe(QUERY_CANCELED);
  });

  it('cancels a purge that waits past the statement timeout', async () => {
    const store = pooledStore();
    const account = await store.findAccount('lister');
    const admin = await blockedBy('SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE', [account?.id]);
    const failed = await store.purge(Number.MAX_SAFE_INTEGER).then(
      () => undefined,
      (error: unknown) => error,
    );
    await admin.query('ROLLBACK');
    expect(failed).toBeInstanceOf(StoreUnavailableError);
    expect(sqlStateOf(failed)).toBe(QUERY_CANCELED);
  });
});
