import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CHANGE_CHANNEL } from '../../src/store/postgres/change-listener.js';
import { applyMigrations } from '../../src/store/postgres/migrate.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPostgresStore, type PostgresStore } from '../../src/store/postgres/store.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { projectDraft, taskDraft } from './suite.js';

/*
 * Migration 17: a commit of an account whose hook wants the change notifies the change feed once,
 * "<account id> <kind> outbox"; up to migration 16 it notified twice, the change and the outbox.
 * A commit nothing went to the outbox for says only its kind. Counted on a LISTEN of its own.
 */

let database: TestDatabase;
let pool: pg.Pool;
let store: PostgresStore;
let ear: pg.Client;
const heard: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  pool = new pg.Pool({ connectionString: database.url });
  await applyMigrations(
    pool,
    MIGRATIONS.filter((migration) => migration.version <= 16),
  );
  store = openPostgresStore({ url: database.url });
  ear = new pg.Client({ connectionString: database.url });
  await ear.connect();
  ear.on('notification', (notification) => heard.push(notification.payload ?? ''));
  await ear.query(`LISTEN ${CHANGE_CHANNEL}`);
});
afterAll(async () => {
  await ear.end();
  await store.close();
  await pool.end();
  await database.drop();
});

/** The notifications of the commits `writes` make, in order (a last commit marks their end). */
async function notified(writes: () => Promise<void>): Promise<string[]> {
  heard.length = 0;
  await writes();
  await pool.query(`NOTIFY ${CHANGE_CHANNEL}, 'end'`);
  for (let tries = 0; !heard.includes('end') && tries < 200; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return heard.filter((payload) => payload !== 'end');
}

it('notifies once per commit from migration 17, naming the outbox when the change went there', async () => {
  const account = (username: string) => store.createAccount({ username, passwordHash: null, timezone: 'UTC' });
  const hooked = await account('hooked');
  const plain = await account('plain');
  const reminders = await account('reminders');
  const hook = { id: 'h', url: 'https://example.com/', active: true, secret: 'whsec_x', created: 1 };
  expect(await store.webhooks.insert(hooked.id, { ...hook, events: ['*'] }, 20)).not.toBe('full');
  expect(await store.webhooks.insert(reminders.id, { ...hook, events: ['reminder.due'] }, 20)).not.toBe('full');

  expect(
    await notified(() => store.write(hooked.id, (tx) => tx.put('task', taskDraft('before'))).then(() => {})),
  ).toEqual([`${hooked.id} task`, `${hooked.id} outbox`]);

  await store.migrate();
  const payloads = await notified(async () => {
    await store.write(hooked.id, async (tx) => {
      await tx.put('task', taskDraft('a'));
      await tx.put('task', taskDraft('b'));
      await tx.put('project', projectDraft('p'));
    });
    await store.write(plain.id, (tx) => tx.put('task', taskDraft('c')));
    await store.write(reminders.id, (tx) => tx.put('task', taskDraft('d')));
  });
  // One per kind of the first commit (the same text twice in a commit is sent once), in no set order.
  expect(payloads.slice(0, 2).sort()).toEqual([`${hooked.id} project outbox`, `${hooked.id} task outbox`]);
  expect(payloads.slice(2)).toEqual([`${plain.id} task`, `${reminders.id} task`]);
  const queued = await store.webhooks.events(hooked.id, 0, 10);
  expect(queued.map((event) => event.type)).toEqual([
    'task.created',
    'task.created',
    'task.created',
    'project.changed',
  ]);
});
