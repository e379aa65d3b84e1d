import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Micros } from '../../src/domain/time.js';
import { openTestPostgresStore, taskDraft, type OpenedPostgresStore } from './postgres-fixture.js';

/*
 * PostgreSQL's restore is pg_restore, which the service does not run: migrate() (every start)
 * tells a restored database by where its epoch was made, and begins a new life there. The whole
 * path, with pg_dump and pg_restore, is test/e2e/postgres-moves.test.ts.
 */

let time: Micros = 1_700_000_000_000_000;
let opened: OpenedPostgresStore;
let client: pg.Client;

beforeEach(async () => {
  opened = await openTestPostgresStore({ clock: () => time });
  client = new pg.Client({ connectionString: opened.database.url });
  await client.connect();
});

afterEach(async () => {
  await client.end();
  await opened.cleanup();
});

describe('a PostgreSQL database restored elsewhere', () => {
  it('keeps its epoch where it was made, and begins a new life with the lost stretch marked where it was not', async () => {
    const { store } = opened;
    const { id } = await store.createAccount({ username: 'a', passwordHash: null, timezone: 'UTC' });
    time += 1_000_000;
    const [written] = await store.write(id, async (tx) => [await tx.put('task', taskDraft('one'))]);
    const before = await store.identity();
    await store.migrate();
    expect(await store.identity()).toEqual(before);

    // What pg_restore into another database brings: the row names where it was made, not here.
    await client.query('UPDATE store_identity SET database_oid = database_oid + 1, legacy_positions = true');
    time += 5_000_000;
    await store.migrate();
    const after = await store.identity();
    expect(after.epoch).not.toBe(before.epoch);
    expect(after.legacyPositions).toBe(false);
    const snapshot = await store.list(id, 'task', { includeDeleted: false });
    expect(snapshot.restoreGap).toEqual({ after: written?.updated, before: time });
    await snapshot.close();
    // The next change is stamped after the restore, outside the gap.
    const [next] = await store.write(id, async (tx) => [await tx.put('task', taskDraft('two'))]);
    expect(next?.updated).toBeGreaterThan(time);
    // And where it is now is remembered: the next start changes nothing.
    await store.migrate();
    expect(await store.identity()).toEqual(after);
  });
});
