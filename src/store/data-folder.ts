import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from '../startup-error.js';
import { SQLITE_FILE_NAME } from './open.js';

/** The files SQLite writes beside the store in WAL mode. */
const SQLITE_FILES = [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`, `${SQLITE_FILE_NAME}-shm`];

function writable(file: string): boolean {
  try {
    accessSync(file, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses to serve from a data folder (or store file) this process may not write: SQLite would
 * open it read-only and every write would fail after a start that looked fine. A folder that does
 * not exist yet is made on start.
 */
export function requireWritableDataFolder(dataDir: string): void {
  if (!existsSync(dataDir)) return;
  if (!statSync(dataDir).isDirectory()) {
    throw new StartupError(`the data folder ${dataDir} is not a folder: choose another --data-dir`);
  }
  const readOnly = [dataDir, ...SQLITE_FILES.map((name) => path.join(dataDir, name))].filter(
    (file) => existsSync(file) && !writable(file),
  );
  if (readOnly.length > 0) {
    throw new StartupError(
      `the data folder ${dataDir} is read-only for this user (${readOnly.join(', ')}): ` +
        'give the user running task-service write access to it, or choose another --data-dir',
    );
  }
}
