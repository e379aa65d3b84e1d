import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { StoreLocation } from '../config.js';
import { openPostgresStore } from './postgres/store.js';
import { openSqliteStore } from './sqlite/store.js';
import type { Store } from './store.js';

export const SQLITE_FILE_NAME = 'tasks.sqlite';

/** Opens the configured engine: SQLite in the data folder, or PostgreSQL at its URL. */
export function openStore(location: StoreLocation, options: { synchronous?: 'FULL' | 'NORMAL' } = {}): Store {
  if (location.engine === 'postgres') return openPostgresStore({ url: location.url });
  mkdirSync(location.dataDir, { recursive: true });
  return openSqliteStore({
    file: path.join(location.dataDir, SQLITE_FILE_NAME),
    ...(options.synchronous === undefined ? {} : { synchronous: options.synchronous }),
  });
}
