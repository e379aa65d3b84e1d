import path from 'node:path';
import type { StoreLocation } from '../config/store-location.js';
import { AdminError } from '../service/accounts.js';
import { backupStore, restoreStore, type SqliteFiles } from '../service/backups.js';
import { SQLITE_FILE_NAME } from '../store/open.js';
import { ProgressBar } from './progress-bar.js';

export type BackupCommand = {
  readonly command: 'backup' | 'restore';
  readonly store: StoreLocation;
  readonly file: string;
};

/** The embedded store's file; PostgreSQL has its own tools, which docs/operations.md describes. */
function sqliteFiles(store: StoreLocation, command: BackupCommand['command']): SqliteFiles {
  if (store.engine === 'postgres') {
    const tool = command === 'backup' ? 'pg_dump' : 'pg_restore';
    throw new AdminError(
      `${command} copies the embedded SQLite store; on PostgreSQL use ${tool} (docs/operations.md describes it)`,
    );
  }
  return { live: path.join(store.dataDir, SQLITE_FILE_NAME) };
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** `task-service backup <file>` and `task-service restore <file>`: wiring and what they print. */
export async function runBackupCommand(command: BackupCommand): Promise<void> {
  const files = sqliteFiles(command.store, command.command);
  if (command.command === 'backup') {
    const bar = new ProgressBar('backup', process.stderr);
    const summary = await backupStore(files, command.file, (progress) =>
      bar.update(progress.copiedPages, progress.totalPages),
    );
    bar.finish();
    const restarts = summary.restarts === 0 ? '' : `; writes made it start over ${summary.restarts} times`;
    console.error(`backup of ${files.live} written to ${command.file} (${megabytes(summary.bytes)}${restarts})`);
    return;
  }
  const summary = restoreStore(files, command.file);
  console.error(
    `restored ${command.file} (schema version ${summary.backupSchemaVersion}` +
      `${summary.backupSchemaVersion === summary.schemaVersion ? '' : `, migrated to ${summary.schemaVersion}`}, ` +
      `${summary.accounts} account${summary.accounts === 1 ? '' : 's'}) into ${files.live}`,
  );
  if (summary.keptAs !== null) console.error(`the replaced store is kept at ${summary.keptAs}`);
  if (summary.replacedUnreadable !== null) {
    console.error(
      `the replaced store could not be read (${summary.replacedUnreadable}): change numbers moved on by a billion instead`,
    );
  }
  console.error('syncing clients will list everything again once (their cursors answer E008)');
}
