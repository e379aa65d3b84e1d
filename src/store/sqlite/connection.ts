import Database from 'better-sqlite3';

export type SqliteDatabase = Database.Database;

/**
 * What an answered write survives: `FULL` a power cut too, `NORMAL` a killed process only. (The
 * store's setting; SQLite's pragma of the same name is NORMAL in both, see openWriteConnection.)
 */
export type SynchronousMode = 'FULL' | 'NORMAL';

/**
 * The WAL file is cut back to this size when it starts over after a checkpoint. Without it a WAL
 * that grew while a reader held an old snapshot keeps its largest size on disk for ever.
 */
const WAL_SIZE_KEPT_BYTES = 64 * 1024 * 1024;

/** How long a statement waits for another process (an admin command) holding the write lock. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The one connection that writes. It also creates the file and switches it to WAL, which is
 * stored in the file, so every later connection (also read-only ones) reads in WAL mode.
 *
 * `synchronous=NORMAL` in WAL mode: SQLite syncs the WAL before each checkpoint copies it into
 * the database, the database after it, and the WAL's header when the file starts over, so the
 * file is never damaged by a power cut; only the sync at each COMMIT is left out. The store makes
 * that one itself, off the event loop, when it runs with durability FULL (wal-sync.ts).
 */
export function openWriteConnection(file: string): SqliteDatabase {
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    const mode = db.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`SQLite refused WAL mode for ${file} (journal_mode is ${String(mode)})`);
    db.pragma('synchronous = NORMAL');
    db.pragma(`journal_size_limit = ${WAL_SIZE_KEPT_BYTES}`);
    db.pragma('foreign_keys = ON');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A connection that only reads. In WAL mode it sees the last commit even while the write
 * connection holds a transaction open, and never blocks the writer.
 */
export function openReadConnection(file: string): SqliteDatabase {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The settings a connection runs with, as SQLite reports them. */
export interface ConnectionSettings {
  readonly journalMode: string;
  readonly synchronous: 'OFF' | SynchronousMode | 'EXTRA';
  readonly foreignKeys: boolean;
  readonly busyTimeoutMs: number;
}

const SYNCHRONOUS_LEVELS = ['OFF', 'NORMAL', 'FULL', 'EXTRA'] as const;

/** Reads the pragmas back, for diagnostics and tests: they are per connection, not in the file. */
export function connectionSettings(db: SqliteDatabase): ConnectionSettings {
  const level = SYNCHRONOUS_LEVELS[Number(db.pragma('synchronous', { simple: true }))];
  if (level === undefined) throw new Error('SQLite reported an unknown synchronous level');
  return {
    journalMode: String(db.pragma('journal_mode', { simple: true })),
    synchronous: level,
    foreignKeys: Number(db.pragma('foreign_keys', { simple: true })) === 1,
    busyTimeoutMs: Number(db.pragma('busy_timeout', { simple: true })),
  };
}
