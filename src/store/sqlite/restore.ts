import Database from 'better-sqlite3';
import { copyFileSync, existsSync, renameSync, rmSync } from 'node:fs';
import type { Micros } from '../../domain/time.js';
import { UnrestorableError } from '../backups.js';
import type { SqliteDatabase } from './connection.js';
import { NEW_EPOCH_SQL } from './epoch.js';
import { applyMigrations, MIGRATIONS } from './migrations.js';

/** The schema version this program writes: the newest migration it knows. */
export const NEWEST_SCHEMA_VERSION = Math.max(...MIGRATIONS.map((migration) => migration.version));

/**
 * Whether another connection has the SQLite file open (a running serve, or an admin command).
 * Every connection to a database in WAL mode holds a shared lock on the file while open, and a
 * process that dies loses its locks: asking for an exclusive lock tells, without any lock file
 * that a crash would leave behind.
 */
export function sqliteFileInUse(file: string): boolean {
  if (!existsSync(file)) return false;
  const probe = new Database(file, { fileMustExist: true, timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('ROLLBACK');
    return false;
  } catch (error) {
    if (error instanceof Database.SqliteError && error.code.startsWith('SQLITE_BUSY')) return true;
    // A damaged file is served by no one: serve refuses to start on it.
    if (isDamage(error)) return false;
    throw error;
  } finally {
    probe.close();
  }
}

export interface RestoredCopy {
  /** The schema version the backup was made with (migrated to the newest on restore). */
  readonly backupSchemaVersion: number;
  readonly accounts: number;
}

/** The change number of each account of a store, by account id. */
export type AccountRevs = ReadonlyMap<number, number>;

/**
 * What is known of the store being replaced: its accounts' change numbers, or (a damaged store,
 * often the reason for the restore) why they cannot be read.
 */
export type ReplacedHeads =
  { readonly readable: true; readonly revs: AccountRevs } | { readonly readable: false; readonly reason: string };

/**
 * How far change numbers move on when the replaced store's cannot be read: past any a store of
 * this service hands out to an account in practice (a billion changes), and far below the
 * largest a cursor holds (2^53).
 */
export const UNKNOWN_HEADS_JUMP = 1_000_000_000;

/** Damage SQLite reports on opening or reading a file. */
function isDamage(error: unknown): error is InstanceType<typeof Database.SqliteError> {
  return (
    error instanceof Database.SqliteError && (error.code === 'SQLITE_NOTADB' || error.code.startsWith('SQLITE_CORRUPT'))
  );
}

function schemaVersionOf(db: SqliteDatabase): number {
  const table = db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .pluck()
    .get();
  if (table === undefined) throw new UnrestorableError('it is not a task-service store (no schema_migrations table)');
  return db.prepare<[], number | null>('SELECT max(version) FROM schema_migrations').pluck().get() ?? 0;
}

function accountRevs(db: SqliteDatabase): AccountRevs {
  const rows = db.prepare<[], { id: number; rev: number }>('SELECT id, rev FROM accounts').all();
  return new Map(rows.map((row) => [row.id, row.rev]));
}

/**
 * The change numbers of the store about to be replaced. Its WAL is checkpointed into the file
 * first, so that the file kept afterwards is the whole store by itself.
 */
export function readReplacedHeads(file: string): ReplacedHeads {
  if (!existsSync(file)) return { readable: true, revs: new Map() };
  try {
    return { readable: true, revs: readAccountRevs(file) };
  } catch (error) {
    if (isDamage(error)) return { readable: false, reason: error.message };
    throw error;
  }
}

function readAccountRevs(file: string): AccountRevs {
  const db = new Database(file, { fileMustExist: true });
  try {
    const checkpoint = db.prepare<[], { busy: number }>('PRAGMA wal_checkpoint(TRUNCATE)').get();
    if (checkpoint !== undefined && checkpoint.busy !== 0) {
      throw new Error(`the store at ${file} is busy: another process has it open`);
    }
    return accountRevs(db);
  } finally {
    db.close();
  }
}

/**
 * Copies the backup to `copy` and makes it ready to serve: checked page by page (integrity), of a
 * schema this program knows (older ones are migrated), and begun as a new life of the store.
 *
 * Why a new life: a client that synced after the backup was taken holds a cursor (or an
 * updated_after) for changes the restored store never saw. The store's new epoch makes every
 * cursor handed out before the restore answer E008, and the gap marked per account does the same
 * for a date the restored store cannot have given; a position handed out afterwards never does.
 * Change numbers still move past anything the replaced store handed out, so that an `if_rev` it
 * gave is never taken for one of the restored store.
 */
export function prepareRestoredCopy(backup: string, copy: string, replaced: ReplacedHeads, now: Micros): RestoredCopy {
  copyFileSync(backup, copy);
  try {
    const db = new Database(copy, { fileMustExist: true });
    try {
      const verdict = readable(() => db.pragma('integrity_check', { simple: true }));
      if (verdict !== 'ok')
        throw new UnrestorableError(`it is damaged: SQLite's integrity check says ${String(verdict)}`);
      const backupSchemaVersion = schemaVersionOf(db);
      if (backupSchemaVersion > NEWEST_SCHEMA_VERSION) {
        throw new UnrestorableError(
          `it has schema version ${backupSchemaVersion}, newer than this program knows (${NEWEST_SCHEMA_VERSION}): ` +
            'restore it with the release that made it',
        );
      }
      const journal = db.pragma('journal_mode = WAL', { simple: true });
      if (journal !== 'wal')
        throw new Error(`SQLite refused WAL mode for the restored copy (journal_mode ${String(journal)})`);
      applyMigrations(db, now);
      const accounts = markRestored(db, replaced, now);
      return { backupSchemaVersion, accounts };
    } finally {
      db.close();
    }
  } catch (error) {
    rmSync(copy, { force: true });
    throw error;
  }
}

/** Runs the first read of a file that may be no database at all, saying so if it is not. */
function readable<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Database.SqliteError && error.code === 'SQLITE_NOTADB') {
      throw new UnrestorableError('it is not an SQLite database');
    }
    throw error;
  }
}

/**
 * Gives the store a new epoch, moves each account's head past both stores' heads, and marks the
 * stretch of `updated` times the restore lost: after the backup's newest change, up to now.
 */
function markRestored(db: SqliteDatabase, replaced: ReplacedHeads, now: Micros): number {
  const mark = db.prepare<[{ rev: number; now: Micros; id: number }]>(
    `UPDATE accounts SET rev = @rev, restore_gap_after = last_updated, restore_gap_before = @now,
       last_updated = max(last_updated, @now)
     WHERE id = @id`,
  );
  const newLife = db.prepare(`UPDATE store_identity SET epoch = ${NEW_EPOCH_SQL}, legacy_positions = 0`);
  const restored = accountRevs(db);
  db.transaction(() => {
    for (const [id, rev] of restored) {
      const next = replaced.readable ? Math.max(rev, replaced.revs.get(id) ?? 0) + 1 : rev + UNKNOWN_HEADS_JUMP + 1;
      mark.run({ rev: next, now, id });
    }
    newLife.run();
  })();
  return restored.size;
}

/**
 * Puts the prepared copy in the live file's place; the live file (already checkpointed) is kept
 * under `keptAs`. Both renames stay in the data folder, so each is atomic.
 */
export function swapInRestoredCopy(live: string, copy: string, keptAs: string): void {
  if (existsSync(live)) {
    renameSync(live, keptAs);
    // A WAL left beside a store that could not be checkpointed (a damaged one) goes with it; the
    // shared-memory index is only an index of the WAL.
    if (existsSync(`${live}-wal`)) renameSync(`${live}-wal`, `${keptAs}-wal`);
    rmSync(`${live}-shm`, { force: true });
  }
  renameSync(copy, live);
}
