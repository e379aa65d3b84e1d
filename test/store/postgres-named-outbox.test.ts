import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { taskDraft } from './suite.js';

/*
 * Migration 16 makes an outbox row name its change, the record staying in its table while its row
 * is there. A database of version 15 holds outbox rows with a copy of their record, queued before
 * the upgrade: they are delivered as they were, the later ones read their row or keep it when it
 * changes again.
 */

let database: TestDatabase;
let pool: pg.Pool;
let store: PostgresStore;

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url });
  await applyMigrations(
    pool,
    MIGRATIONS.filter((migration) => migration.version <= 15),
  );
  store = openPostgresStore({ url: database.url });
});
afterAll(async () => {
  await store.close();
  await pool.end();
  await database.drop();
});

it('keeps the records a version 15 outbox queued; from migration 16 on a row names its change', async () => {
  const account = await store.createAccount({ username: 'upgraded', passwordHash: null, timezone: 'UTC' });
  const hook = await store.webhooks.insert(
    account.id,
    { id: 'h', url: 'https://example.com/', events: ['*'], active: true, secret: 'whsec_x', created: 1 },
    20,
  );
  expect(hook).not.toBe('full');
  const queued = await store.write(account.id, (tx) => tx.put('task', taskDraft('t', { title: 'as queued' })));
  await store.write(account.id, (tx) => tx.put('task', taskDraft('t', { title: 'changed before the upgrade' })));
  await store.migrate();
  const third = await store.write(account.id, (tx) => tx.put('task', taskDraft('t', { title: 'after the upgrade' })));
  const kept = await pool.query<{ rev: string; kept: boolean }>(
    'SELECT rev, record IS NOT NULL AS kept FROM webhook_outbox WHERE account_id = $1 ORDER BY rev',
    [account.id],
  );
  expect(kept.rows.map((row) => [Number(row.rev), row.kept])).toEqual([
    [queued.rev, true],
    [queued.rev + 1, true],
    [third.rev, false],
  ]);
  await store.write(account.id, (tx) => tx.put('task', taskDraft('t', { title: 'last' })));
  const events = await store.webhooks.events(account.id, 0, 10);
  expect(events.map((event) => [event.type, event.rev, 'title' in event.record && event.record.title])).toEqual([
    ['task.created', queued.rev, 'as queued'],
    ['task.updated', queued.rev + 1, 'changed before the upgrade'],
    ['task.updated', third.rev, 'after the upgrade'],
    ['task.updated', third.rev + 1, 'last'],
  ]);
  expect(events[2]?.record).toEqual(third);
});
