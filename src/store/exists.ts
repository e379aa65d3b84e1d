import { existsSync } from 'node:fs';
import path from 'node:path';
import type { StoreLocation } from '../config/store-location.js';
import { SQLITE_FILE_NAME } from './open.js';

/**
 * Whether a store is where `location` points: the SQLite file in the data folder, or (PostgreSQL)
 * the tables of task-service in the database. Looks without creating anything.
 */
export async function storeExists(location: StoreLocation): Promise<boolean> {
  if (location.engine === 'sqlite') return existsSync(path.join(location.dataDir, SQLITE_FILE_NAME));
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: location.url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const result = await client.query<{ found: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS found",
    );
    return result.rows[0]?.found === true;
  } finally {
    await client.end();
  }
}

/** Where `location` looked, for a message: the SQLite file, or the database without its password. */
export function describeLocation(location: StoreLocation): string {
  if (location.engine === 'sqlite') return path.join(location.dataDir, SQLITE_FILE_NAME);
  try {
    const url = new URL(location.url);
    url.password = '';
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return 'the PostgreSQL database of --database-url';
  }
}
