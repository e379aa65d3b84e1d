import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestPostgresStore, type OpenedPostgresStore } from './postgres-fixture.js';

/*
 * The rule that lets the PostgreSQL schema be distributed by account (docs/operations.md,
 * "Sharding by account"), read from the catalog of a really migrated database: every table leads
 * with its account column and every index on it too, so a future table or index that breaks the
 * rule fails here. A table or index outside the rule must be listed below with its reason.
 */

/** The account column of a table distributed by account: `account_id`, except in `accounts`. */
const ACCOUNT_COLUMN_OF: Readonly<Record<string, string>> = { accounts: 'id' };

/** Tables that are not distributed by account, and why (docs/operations.md says what each becomes). */
const TABLES_NOT_BY_ACCOUNT: Readonly<Record<string, string>> = {
  schema_migrations: 'the schema version, read by the migrator only; stays on the coordinator',
  oauth_clients: 'clients registered by the administrator, few and read with any account: a reference table',
  usernames:
    'the directory from a username to its account, read before the account is known (sign-in, the command line): distributed by username',
  legacy_secrets:
    'the directory from the hash of a secret made before migration 7 to its account; never written again: a reference table',
  store_identity:
    "one row naming the database's life (its epoch), read with every list snapshot; written by migrate only: a reference table",
  sign_in_failures:
    'the sign-in throttle, keyed by username or address, not by account (an unknown name has none): distributed by its key',
};

/** Indexes of tables distributed by account that do not lead with it, and why. */
const INDEXES_NOT_BY_ACCOUNT: Readonly<Record<string, string>> = {
  sessions_by_last_seen:
    'used only by the sweep that forgets idle sessions of every account (administration); each shard keeps its own',
  tasks_reminder_due:
    'the due-reminder read of every account at once (Store.dueReminders, the firer of reminders); each shard keeps its own',
};

interface IndexRow {
  readonly table: string;
  readonly index: string;
  readonly first_column: string | null;
}

let opened: OpenedPostgresStore;
let client: pg.Client;

beforeAll(async () => {
  opened = await openTestPostgresStore();
  client = new pg.Client({ connectionString: opened.database.url });
  await client.connect();
});
afterAll(async () => {
  await client.end();
  await opened.cleanup();
});

async function tables(): Promise<string[]> {
  const result = await client.query<{ table_name: string }>(
    `SELECT table_name FROM information_schema.tables
     WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  return result.rows.map((row) => row.table_name);
}

/** Every index of every table of the schema, primary keys and unique constraints included. */
async function indexes(): Promise<IndexRow[]> {
  const result = await client.query<IndexRow>(
    `SELECT t.relname AS table, i.relname AS index, a.attname AS first_column
     FROM pg_index x
     JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_class i ON i.oid = x.indexrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = x.indkey[0]
     WHERE n.nspname = 'public'
     ORDER BY t.relname, i.relname`,
  );
  return result.rows;
}

function accountColumnOf(table: string): string {
  return ACCOUNT_COLUMN_OF[table] ?? 'account_id';
}

describe('the PostgreSQL schema, as migrated', () => {
  it('has the account column, bigint and never null, in every table distributed by account', async () => {
    const byAccount = (await tables()).filter((table) => !(table in TABLES_NOT_BY_ACCOUNT));
    expect(byAccount).toContain('tasks');
    const columns = await client.query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = 'public'`,
    );
    for (const table of byAccount) {
      const column = columns.rows.find((row) => row.table_name === table && row.column_name === accountColumnOf(table));
      expect(column, `${table} has no ${accountColumnOf(table)}`).toMatchObject({
        data_type: 'bigint',
        is_nullable: 'NO',
      });
    }
  });

  it('leads every index of those tables, keys and unique constraints included, with the account', async () => {
    const exempt = new Set(Object.keys(TABLES_NOT_BY_ACCOUNT));
    const offending = (await indexes())
      .filter((row) => !exempt.has(row.table) && !(row.index in INDEXES_NOT_BY_ACCOUNT))
      .filter((row) => row.first_column !== accountColumnOf(row.table))
      .map((row) => `${row.table}.${row.index} leads with ${row.first_column ?? 'an expression'}`);
    expect(offending).toEqual([]);
  });

  it('ties tables to accounts only through the account column, and never an exempt table to one', async () => {
    // A distributed database allows a foreign key between tables distributed alike only on the
    // distribution column, and none from a reference table to a distributed one.
    const keys = await client.query<{ table: string; columns: string[]; target: string; target_columns: string[] }>(
      `SELECT t.relname AS table, r.relname AS target,
              array(SELECT attname::text FROM pg_attribute WHERE attrelid = c.conrelid AND attnum = ANY (c.conkey)) AS columns,
              array(SELECT attname::text FROM pg_attribute WHERE attrelid = c.confrelid AND attnum = ANY (c.confkey)) AS target_columns
       FROM pg_constraint c
       JOIN pg_class t ON t.oid = c.conrelid
       JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
       WHERE c.contype = 'f' AND n.nspname = 'public'`,
    );
    expect(keys.rows.length).toBeGreaterThan(0);
    for (const key of keys.rows) {
      const what = `${key.table} (${key.columns.join(', ')}) → ${key.target}`;
      expect(key.table in TABLES_NOT_BY_ACCOUNT || key.target in TABLES_NOT_BY_ACCOUNT, what).toBe(false);
      expect(key.columns, what).toEqual([accountColumnOf(key.table)]);
      expect(key.target_columns, what).toEqual([accountColumnOf(key.target)]);
    }
  });

  it('lists no exception that is not in the schema (a stale one would hide a new table of that name)', async () => {
    const present = new Set(await tables());
    expect(Object.keys(TABLES_NOT_BY_ACCOUNT).filter((table) => !present.has(table))).toEqual([]);
    const indexNames = new Set((await indexes()).map((row) => row.index));
    expect(Object.keys(INDEXES_NOT_BY_ACCOUNT).filter((index) => !indexNames.has(index))).toEqual([]);
  });
});
