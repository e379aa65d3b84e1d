import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { taskDraft } from './suite.js';

/*
 * Migration 15 makes the outbox keep only the changes that an active hook wants. A database of
 * version 14 may hold changes its hooks do not want, queued before the upgrade: they stay, and
 * are delivered (or skipped) as before.
 */

let database: TestDatabase;
let store: PostgresStore;

beforeAll(async () => {
  database = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: database.url });
  try {
    await applyMigrations(
      pool,
      MIGRATIONS.filter((migration) => migration.version <= 14),
    );
  } finally {
    await pool.end();
  }
  store = openPostgresStore({ url: database.url });
});
afterAll(async () => {
  await store.close();
  await database.drop();
});

it('keeps what a version 14 outbox queued, and from migration 15 on only what a hook wants', async () => {
  const account = await store.createAccount({ username: 'upgraded', passwordHash: null, timezone: 'UTC' });
  const hook = await store.webhooks.insert(
    account.id,
    { id: 'h', url: 'https://example.com/', events: ['project.changed'], active: true, secret: 'whsec_x', created: 1 },
    20,
  );
  expect(hook).not.toBe('full');
  const queued = await store.write(account.id, (tx) => tx.put('task', taskDraft('queued')));
  await store.migrate();
  await store.write(account.id, (tx) => tx.put('task', taskDraft('after')));
  const events = await store.webhooks.events(account.id, 0, 10);
  expect(events.map((event) => [event.type, event.rev])).toEqual([['task.created', queued.rev]]);
  expect(events[0]?.record).toMatchObject({ id: 'queued' });
});
