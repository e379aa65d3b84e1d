import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { nowMicros } from '../domain/time.js';
import { backupSqliteFile, type BackupProgress, type BackupSummary } from '../store/sqlite/backup.js';
import {
  NEWEST_SCHEMA_VERSION,
  prepareRestoredCopy,
  readReplacedHeads,
  sqliteFileInUse,
  swapInRestoredCopy,
  UnrestorableError,
} from '../store/sqlite/restore.js';
import { AdminError } from './accounts.js';

export type { BackupProgress } from '../store/sqlite/backup.js';

/** The embedded store's file in the data folder (store/open.ts names it). */
export interface SqliteFiles {
  readonly live: string;
}

/**
 * `task-service backup <file>`: an online copy of the embedded store, made while serve keeps
 * answering. Refuses to overwrite a file, so that a mistyped name never destroys a backup.
 */
export async function backupStore(
  store: SqliteFiles,
  destination: string,
  onProgress: (progress: BackupProgress) => void,
): Promise<BackupSummary> {
  if (!existsSync(store.live)) throw new AdminError(`there is no store at ${store.live} to back up`);
  if (existsSync(destination)) throw new AdminError(`${destination} exists: give the backup a new file name`);
  if (!existsSync(path.dirname(destination))) {
    throw new AdminError(`the folder of ${destination} does not exist`);
  }
  return backupSqliteFile(store.live, destination, onProgress);
}

export interface RestoreSummary {
  readonly backupSchemaVersion: number;
  readonly schemaVersion: number;
  readonly accounts: number;
  /**
   * Why the replaced store's change numbers could not be read (it is damaged), or null: they were
   * then moved on by UNKNOWN_HEADS_JUMP, so every earlier cursor still answers E008.
   */
  readonly replacedUnreadable: string | null;
  /** Where the store that was replaced is kept; null when there was none. */
  readonly keptAs: string | null;
}

/** A file name for the replaced store that sorts by time and names no local zone. */
function keptName(live: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${live}.replaced-${stamp}`;
}

function explainedUnrestorable<T>(backup: string, work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof UnrestorableError) throw new AdminError(`cannot restore ${backup}: ${error.message}`);
    throw error;
  }
}

/**
 * `task-service restore <file>`: replaces the embedded store with a backup. Refuses while anything
 * has the store open (a running serve above all), checks the backup before touching the store,
 * keeps the replaced store beside it, and expires every sync position handed out before, so
 * syncing clients list again (E008) instead of going silently wrong.
 */
export function restoreStore(store: SqliteFiles, backup: string): RestoreSummary {
  if (!existsSync(backup)) throw new AdminError(`there is no backup at ${backup}`);
  if (sqliteFileInUse(store.live)) {
    throw new AdminError(
      `the store at ${store.live} is in use (serve, or another command, has it open): ` +
        'stop serve before restoring, and start it again afterwards',
    );
  }
  // Restoring onto a new machine: the data folder may not exist yet.
  mkdirSync(path.dirname(store.live), { recursive: true });
  const copy = `${store.live}.restoring-${process.pid}`;
  const now = nowMicros();
  const replaced = readReplacedHeads(store.live);
  const prepared = explainedUnrestorable(backup, () => prepareRestoredCopy(backup, copy, replaced, now));
  const keptAs = existsSync(store.live) ? keptName(store.live, new Date(now / 1000)) : null;
  swapInRestoredCopy(store.live, copy, keptAs ?? `${store.live}.replaced`);
  return {
    ...prepared,
    schemaVersion: NEWEST_SCHEMA_VERSION,
    keptAs,
    replacedUnreadable: replaced.readable ? null : replaced.reason,
  };
}
