import path from 'node:path';
import type { StoreLocation } from '../config/store-location.js';
import { SQLITE_FILE_NAME } from './data-folder.js';

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
