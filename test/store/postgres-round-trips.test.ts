import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase } from '../support/postgres.js';
import { readAll, taskDraft } from './postgres-fixture.js';
import { RoundTripCounter } from './round-trip-counter.js';

/*
 * Issue #15: a write is prepared without a transaction and committed by one statement. Counted
 * on the wire, between a real store and the real server.
 */

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Counted {
  readonly store: PostgresStore;
  /** A second process on the same database, not counted. */
  readonly other: PostgresStore;
  readonly accountId: number;
  readonly tokenHash: string;
  /** Round trips `action` made through the counted store. */
  roundTripsOf(action: () => Promise<unknown>): Promise<number>;
}

async function counted(): Promise<Counted> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const other = openPostgresStore({ url: database.url });
  cleanups.push(() => other.close());
  await other.migrate();
  const { id: accountId } = await other.createAccount({ username: 'counted', passwordHash: null, timezone: 'UTC' });
  const tokenHash = 'ab'.repeat(32);
  await other.insertToken({ hash: tokenHash, accountId, scope: 'write', name: '', expiresAt: null });

  const url = new URL(database.url);
  const counter = await RoundTripCounter.start({ host: url.hostname, port: Number(url.port) });
  cleanups.push(() => counter.stop());
  url.port = String(counter.port);
  // One connection, opened before counting: its start-up exchange is not a round trip of a write.
  const store = openPostgresStore({ url: url.toString(), poolSize: 1 });
  cleanups.push(() => store.close());
  await store.ping();
  return {
    store,
    other,
    accountId,
    tokenHash,
    roundTripsOf: async (action) => {
      const before = counter.roundTrips;
      await action();
      return counter.roundTrips - before;
    },
  };
}

describe('a PostgreSQL write', () => {
  it('that reads nothing is one round trip once the token check has read where the account stands', async () => {
    const { store, accountId, tokenHash, roundTripsOf } = await counted();
    expect(await roundTripsOf(() => store.findToken({ hash: tokenHash, accountId }))).toBe(1);
    expect(await roundTripsOf(() => store.write(accountId, (tx) => tx.put('task', taskDraft('one'))))).toBe(1);
    // The next counts on from its own commit.
    expect(await roundTripsOf(() => store.write(accountId, (tx) => tx.put('task', taskDraft('two'))))).toBe(1);
    const tasks = await readAll(await store.list(accountId, 'task', { includeDeleted: false }));
    expect(tasks.map((task) => [task.id, task.rev])).toEqual([
      ['one', 1],
      ['two', 2],
    ]);
  });

  it('reads the account row first when nothing told it where the account stands', async () => {
    const { store, accountId, roundTripsOf } = await counted();
    expect(await roundTripsOf(() => store.write(accountId, (tx) => tx.put('task', taskDraft('cold'))))).toBe(2);
  });

  it('makes its reads, then commits them with its puts in one round trip', async () => {
    const { store, accountId, tokenHash, roundTripsOf } = await counted();
    await store.findToken({ hash: tokenHash, accountId });
    const create = (): Promise<unknown> =>
      store.write(accountId, async (tx) => {
        const kept = await tx.findKept('retry-1');
        if (kept !== undefined) return kept.outcome;
        const task = await tx.put('task', taskDraft('kept'));
        const outcome = { kind: 'task' as const, zone: 'UTC', many: false, records: [task] };
        await tx.keep('retry-1', 'hash-1', outcome);
        return outcome;
      });
    expect(await roundTripsOf(create)).toBe(2);
    // The retry finds the kept outcome and writes nothing: one read, no commit.
    expect(await roundTripsOf(create)).toBe(1);
    expect((await store.head(accountId))?.rev).toBe(1);
  });

  it('is prepared again when another process wrote the account meanwhile, and keeps commit order', async () => {
    const { store, other, accountId, tokenHash, roundTripsOf } = await counted();
    await store.findToken({ hash: tokenHash, accountId });
    await other.write(accountId, (tx) => tx.put('task', taskDraft('elsewhere')));
    // The standing noted by the token check is stale: the commit says so, and the second try lands.
    expect(await roundTripsOf(() => store.write(accountId, (tx) => tx.put('task', taskDraft('here'))))).toBe(2);
    const tasks = await readAll(await store.list(accountId, 'task', { includeDeleted: false }));
    expect(tasks.map((task) => [task.id, task.rev])).toEqual([
      ['elsewhere', 1],
      ['here', 2],
    ]);
    expect(tasks[1]?.updated).toBeGreaterThan(tasks[0]?.updated ?? Number.POSITIVE_INFINITY);
  });

  it('of a record it did not read, which exists after all, is done again under the lock', async () => {
    const { store, other, accountId } = await counted();
    await other.write(accountId, (tx) => tx.put('task', taskDraft('exists', { title: 'first' })));
    const stored = await other.get(accountId, 'task', 'exists');
    // Put without reading it: taken for new, the usage counted differs, and the locked write wins.
    const rewritten = await store.write(accountId, (tx) => tx.put('task', taskDraft('exists', { title: 'second' })));
    expect(rewritten).toMatchObject({ title: 'second', created: stored?.created, rev: 2 });
    expect(await store.get(accountId, 'task', 'exists')).toEqual(rewritten);
    expect(await store.write(accountId, (tx) => tx.usage())).toEqual({ records: 1, bytes: 'second'.length });
  });
});
