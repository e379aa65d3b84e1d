import { accessSync, chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from '../config/startup-error.js';

/** The embedded store's file in the data folder. */
export const SQLITE_FILE_NAME = 'tasks.sqlite';

/** Only the user running the service may enter the data folder, or read and write its files. */
const FOLDER_MODE = 0o700;
const FILE_MODE = 0o600;

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

/** Sets a mode on a path this user owns; one owned by someone else (EPERM) is left as it is. */
function restrict(file: string, mode: number): void {
  try {
    chmodSync(file, mode);
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'EPERM')) throw error;
  }
}

/**
 * Makes the data folder when missing and keeps other users out of it and of the store's files
 * (issue #16): the folder 0700, the files 0600, whatever the umask. The store file is made here
 * with its mode before SQLite opens it, since SQLite gives its WAL and shared-memory files the
 * mode of the store file.
 */
export function prepareDataFolder(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: FOLDER_MODE });
  restrict(dataDir, FOLDER_MODE);
  const store = path.join(dataDir, SQLITE_FILE_NAME);
  if (!existsSync(store)) closeSync(openSync(store, 'a', FILE_MODE));
  for (const file of SQLITE_FILES.map((name) => path.join(dataDir, name))) {
    if (existsSync(file)) restrict(file, FILE_MODE);
  }
}
