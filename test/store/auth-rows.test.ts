/**
 * The rows of sign-in are described once (src/store/auth/rows.ts) and each engine's migrations
 * create their tables in its own dialect: this holds both migrated schemas to the description,
 * column by column (name, type, whether it may be null), so neither can drift from it unseen.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_TABLES } from '../../src/store/auth/rows.js';
import type { ColumnType } from '../../src/store/kinds/columns.js';
import { openSqliteStore } from '../../src/store/sqlite/store.js';
import { openTestPostgresStore, type OpenedPostgresStore } from './postgres-fixture.js';

/** Columns of these tables that are not sign-in's, and whose they are. */
const COLUMNS_OF_OTHERS: Readonly<Record<string, readonly string[]>> = {
  // The sync position, what a restore lost of it, and what the account stores: the store's, read
  // with the synced kinds.
  accounts: [
    'rev',
    'last_updated',
    'purged_rev',
    'purged_updated',
    'restore_gap_after',
    'restore_gap_before',
    'stored_records',
    'stored_bytes',
  ],
};

/** A column as a schema has it: its declared type and whether it may hold null. */
interface SchemaColumn {
  readonly type: string;
  readonly nullable: boolean;
}

const NULLABLE: ReadonlySet<ColumnType> = new Set(['textOrNull', 'microsOrNull']);

/** What the description says of each column of each table, in the engine's words. */
function described(typeIn: (type: ColumnType) => readonly string[]): Record<string, Record<string, unknown>> {
  const tables: Record<string, Record<string, unknown>> = {};
  for (const [table, columns] of Object.entries(AUTH_TABLES)) {
    const entries: [string, unknown][] = Object.entries(columns).map(([name, type]) => [
      name,
      { type: expect.toBeOneOf([...typeIn(type)]), nullable: NULLABLE.has(type) },
    ]);
    tables[table] = Object.fromEntries(entries);
  }
  return tables;
}

/** The schema's columns of the described tables, without those of others. */
function signInColumns(columnsOf: (table: string) => Record<string, SchemaColumn>): Record<string, unknown> {
  const tables: Record<string, unknown> = {};
  for (const table of Object.keys(AUTH_TABLES)) {
    const others = new Set(COLUMNS_OF_OTHERS[table]);
    tables[table] = Object.fromEntries(Object.entries(columnsOf(table)).filter(([name]) => !others.has(name)));
  }
  return tables;
}

describe('the rows of sign-in, as each engine migrates them', () => {
  let dir: string;
  let opened: OpenedPostgresStore;
  let client: pg.Client;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'task-service-auth-rows-'));
    const sqlite = openSqliteStore({ file: path.join(dir, 'tasks.sqlite') });
    await sqlite.migrate();
    await sqlite.close();
    opened = await openTestPostgresStore();
    client = new pg.Client({ connectionString: opened.database.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await opened.cleanup();
    await rm(dir, { recursive: true, force: true });
  });

  it('SQLite has every described column with its type, and no other', () => {
    const db = new Database(path.join(dir, 'tasks.sqlite'), { readonly: true });
    try {
      const columnsOf = (table: string): Record<string, SchemaColumn> => {
        const rows = db
          .prepare<[], { name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${table})`)
          .all();
        // A primary key is never null in practice; SQLite's PRAGMA reports only NOT NULL as said.
        return Object.fromEntries(
          rows.map((row) => [row.name, { type: row.type, nullable: row.notnull === 0 && row.pk === 0 }]),
        );
      };
      expect(signInColumns(columnsOf)).toEqual(
        described((type) => (type === 'text' || type === 'textOrNull' ? ['TEXT'] : ['INTEGER'])),
      );
    } finally {
      db.close();
    }
  });

  it('PostgreSQL has every described column with its type, and no other', async () => {
    const result = await client.query<{
      table_name: string;
      column_name: string;
      data_type: string;
      is_nullable: string;
    }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = 'public'`,
    );
    const columnsOf = (table: string): Record<string, SchemaColumn> =>
      Object.fromEntries(
        result.rows
          .filter((row) => row.table_name === table)
          .map((row) => [row.column_name, { type: row.data_type, nullable: row.is_nullable === 'YES' }]),
      );
    const POSTGRES_TYPES: Readonly<Record<ColumnType, readonly string[]>> = {
      text: ['text'],
      textOrNull: ['text'],
      bool: ['boolean'],
      int: ['bigint', 'integer', 'smallint'],
      micros: ['bigint'],
      microsOrNull: ['bigint'],
      textList: ['ARRAY'],
    };
    expect(signInColumns(columnsOf)).toEqual(described((type) => POSTGRES_TYPES[type]));
  });
});
