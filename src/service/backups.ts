import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Clock } from '../domain/time.js';
import {
  UnrestorableError,
  type BackupProgress,
  type BackupSummary,
  type RestoreSummary,
  type StoreBackups,
} from '../store/backups.js';
import { AdminError } from './accounts.js';

/**
 * `task-service backup <file>`: an online copy of the embedded store, made while serve keeps
 * answering. Refuses to overwrite a file, so that a mistyped name never destroys a backup.
 */
export async function backupStore(
  store: StoreBackups,
  destination: string,
  onProgress: (progress: BackupProgress) => void,
): Promise<BackupSummary> {
  if (!store.exists()) throw new AdminError(`there is no store at ${store.where} to back up`);
  if (existsSync(destination)) throw new AdminError(`${destination} exists: give the backup a new file name`);
  if (!existsSync(path.dirname(destination))) {
    throw new AdminError(`the folder of ${destination} does not exist`);
  }
  return store.backup(destination, onProgress);
}

/**
 * `task-service restore <file>`: replaces the embedded store with a backup. Refuses while anything
 * has the store open (a running serve above all), checks the backup before touching the store,
 * keeps the replaced store beside it, and expires every sync position handed out before, so
 * syncing clients list again (E008) instead of going silently wrong.
 */
export function restoreStore(store: StoreBackups, backup: string, now: Clock): RestoreSummary {
  if (!existsSync(backup)) throw new AdminError(`there is no backup at ${backup}`);
  if (store.inUse()) {
    throw new AdminError(
      `the store at ${store.where} is in use (serve, or another command, has it open): ` +
        'stop serve before restoring, and start it again afterwards',
    );
  }
  try {
    return store.restore(backup, now());
  } catch (error) {
    if (error instanceof UnrestorableError) throw new AdminError(`cannot restore ${backup}: ${error.message}`);
    throw error;
  }
}
