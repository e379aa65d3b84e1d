import type { StoreLocation } from '../config/store-location.js';
import { nowMicros } from '../domain/time.js';
import { AdminError } from '../service/accounts.js';
import { backupStore, restoreStore } from '../service/backups.js';
import type { StoreBackups } from '../store/backups.js';
import { openBackups } from '../store/open.js';
import { ProgressBar } from './progress-bar.js';

export type BackupCommand = {
  readonly command: 'backup' | 'restore';
  readonly store: StoreLocation;
  readonly file: string;
};

/** The embedded store's backups; PostgreSQL has its own tools, which docs/operations.md describes. */
async function backupsOf(command: BackupCommand): Promise<StoreBackups> {
  const backups = await openBackups(command.store);
  if (backups === null) {
    const tool = command.command === 'backup' ? 'pg_dump' : 'pg_restore';
    throw new AdminError(
      `${command.command} copies the embedded SQLite store; on PostgreSQL use ${tool} (docs/operations.md describes it)`,
    );
  }
  return backups;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

/** `task-service backup <file>` and `task-service restore <file>`: wiring and what they print. */
export async function runBackupCommand(command: BackupCommand): Promise<void> {
  const backups = await backupsOf(command);
  if (command.command === 'backup') {
    const bar = new ProgressBar('backup', process.stderr);
    const summary = await backupStore(backups, command.file, (progress) =>
      bar.update(progress.copiedPages, progress.totalPages),
    );
    bar.finish();
    const restarts = summary.restarts === 0 ? '' : `; writes made it start over ${summary.restarts} times`;
    console.error(`backup of ${backups.where} written to ${command.file} (${megabytes(summary.bytes)}${restarts})`);
    return;
  }
  const summary = restoreStore(backups, command.file, nowMicros);
  console.error(
    `restored ${command.file} (schema version ${summary.backupSchemaVersion}` +
      `${summary.backupSchemaVersion === summary.schemaVersion ? '' : `, migrated to ${summary.schemaVersion}`}, ` +
      `${summary.accounts} account${summary.accounts === 1 ? '' : 's'}) into ${backups.where}`,
  );
  if (summary.keptAs !== null) console.error(`the replaced store is kept at ${summary.keptAs}`);
  if (summary.replacedUnreadable !== null) {
    console.error(
      `the replaced store could not be read (${summary.replacedUnreadable}): change numbers moved on by a billion instead`,
    );
  }
  console.error('syncing clients will list everything again once (their cursors answer E008)');
}
