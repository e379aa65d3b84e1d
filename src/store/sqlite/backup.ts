import Database from 'better-sqlite3';
import { chmod, rename, rm, stat, writeFile } from 'node:fs/promises';
import type { BackupProgress, BackupSummary } from '../backups.js';

/** Steps per pass: enough for a smooth progress bar, few enough to cost nothing. */
const STEPS_PER_PASS = 100;
/** The most pages one step may copy (SQLite's int): "all that remain". */
const ALL_REMAINING_PAGES = 0x7fffffff;

/** Read and write for the file's owner, nothing for anyone else. */
export const OWNER_ONLY = 0o600;

/** How long the backup's connection waits for the writer of the live store (a checkpoint). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Copies the live SQLite file at `source` to `destination` with SQLite's online backup, while
 * other processes (a running serve) keep reading and writing it.
 *
 * The copy runs in steps so progress can be shown. SQLite restarts a copy when another connection
 * writes to the source between two steps, so under a steady stream of writes a stepped copy might
 * never finish: after the first restart every step copies all remaining pages at once, inside one
 * read transaction, which in WAL mode never blocks the writer. Either way the finished copy is the
 * store as of one moment after the copy began: every write answered before then is in it.
 *
 * The copy is made beside `destination` and renamed into place only when whole and checked, in
 * rollback-journal mode so that the one file is the whole backup.
 */
export async function backupSqliteFile(
  source: string,
  destination: string,
  onProgress: (progress: BackupProgress) => void,
): Promise<BackupSummary> {
  const partial = `${destination}.partial-${process.pid}`;
  // Made first, for its owner only (it holds every account's data and password hashes): SQLite
  // keeps the mode of a file it writes into (issue 21).
  await writeFile(partial, '', { mode: OWNER_ONLY });
  const live = new Database(source, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  let restarts = 0;
  try {
    live.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    let previousRemaining = Infinity;
    let wholeSteps = false;
    await live.backup(partial, {
      progress: ({ totalPages, remainingPages }) => {
        // Every step copies at least one page: remaining pages that did not go down mean a restart.
        if (remainingPages >= previousRemaining) {
          restarts += 1;
          wholeSteps = true;
        }
        previousRemaining = remainingPages;
        onProgress({ totalPages, copiedPages: totalPages - remainingPages });
        return wholeSteps ? ALL_REMAINING_PAGES : Math.max(1, Math.ceil(totalPages / STEPS_PER_PASS));
      },
    });
    checkCopy(partial);
    // Whatever the umask or an earlier file left: the finished backup is its owner's only.
    await chmod(partial, OWNER_ONLY);
    await rename(partial, destination);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  } finally {
    live.close();
  }
  const { size } = await stat(destination);
  return { bytes: size, restarts };
}

/** Turns the copy into a one-file database and checks it page by page. */
function checkCopy(file: string): void {
  const copy = new Database(file, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const verdict = copy.pragma('quick_check', { simple: true });
    if (verdict !== 'ok') throw new Error(`the backup copy failed SQLite's check: ${String(verdict)}`);
  } finally {
    copy.close();
  }
}
