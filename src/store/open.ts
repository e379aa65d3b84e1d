import { existsSync } from 'node:fs';
import path from 'node:path';
import type { StoreLocation } from '../config/store-location.js';
import { prepareDataFolder, SQLITE_FILE_NAME } from './data-folder.js';
import type { StoreBackups } from './backups.js';
import type { Store } from './store.js';
import type { OutboxReader } from './webhook-store.js';

export { SQLITE_FILE_NAME } from './data-folder.js';

/**
 * Opens the configured engine: SQLite in the data folder, or PostgreSQL at its URL. Each engine's
 * module is loaded only when chosen, so a process does not carry the other's driver.
 */
export async function openStore(
  location: StoreLocation,
  options: { synchronous?: 'FULL' | 'NORMAL' } = {},
): Promise<Store> {
  if (location.engine === 'postgres') {
    const { openPostgresStore } = await import('./postgres/store.js');
    return openPostgresStore({
      url: location.url,
      pooled: location.pooled,
      ...(location.listenUrl === undefined ? {} : { listenUrl: location.listenUrl }),
    });
  }
  prepareDataFolder(location.dataDir);
  const { openSqliteStore } = await import('./sqlite/store.js');
  return openSqliteStore({
    file: path.join(location.dataDir, SQLITE_FILE_NAME),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
  });
}

/**
 * Whether a store is where `location` points: the SQLite file in the data folder, or (PostgreSQL)
 * the tables of task-service in the database. Looks without creating anything.
 */
export async function storeExists(location: StoreLocation): Promise<boolean> {
  if (location.engine === 'sqlite') return existsSync(path.join(location.dataDir, SQLITE_FILE_NAME));
  const { postgresStoreExists } = await import('./postgres/exists.js');
  return postgresStoreExists(location.url);
}

/**
 * The backup and restore of the configured store by its files; null on PostgreSQL, whose own tools
 * (pg_dump, pg_restore) do it (docs/operations.md).
 */
export async function openBackups(location: StoreLocation): Promise<StoreBackups | null> {
  if (location.engine === 'postgres') return null;
  const { sqliteBackups } = await import('./sqlite/backups.js');
  return sqliteBackups(path.join(location.dataDir, SQLITE_FILE_NAME));
}

/**
 * Whether the webhooks' outbox can be read beside the store, on another thread over a connection of
 * its own (openOutboxReader): on SQLite, whose readers never wait for its writer and whose request
 * thread is the limit of its writes. On PostgreSQL the sender reads it through the store: there the
 * database is the limit, and a reader of its own changed nothing but the connection count (bench W).
 */
export function outboxReadableAside(location: StoreLocation): boolean {
  return location.engine === 'sqlite';
}

/** A reader of the outbox of the store at `location`, which outboxReadableAside says it has. */
export async function openOutboxReader(location: StoreLocation): Promise<OutboxReader> {
  if (location.engine === 'postgres') throw new Error('the outbox of PostgreSQL is read through its store');
  const { openSqliteOutboxReader } = await import('./sqlite/outbox-reader.js');
  return openSqliteOutboxReader(path.join(location.dataDir, SQLITE_FILE_NAME));
}

/** Opens the store and applies its pending migrations; a store that fails to migrate is closed again. */
export async function openMigrated(
  location: StoreLocation,
  options: { synchronous?: 'FULL' | 'NORMAL' } = {},
): Promise<Store> {
  const store = await openStore(location, options);
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
