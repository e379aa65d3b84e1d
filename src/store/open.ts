import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { StoreLocation } from '../config.js';
import type { Store } from './store.js';

export const SQLITE_FILE_NAME = 'tasks.sqlite';

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
    return openPostgresStore({ url: location.url });
  }
  mkdirSync(location.dataDir, { recursive: true });
  const { openSqliteStore } = await import('./sqlite/store.js');
  return openSqliteStore({
    file: path.join(location.dataDir, SQLITE_FILE_NAME),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
  });
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
