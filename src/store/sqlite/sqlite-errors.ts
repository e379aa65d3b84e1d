import Database from 'better-sqlite3';

/** A UNIQUE or PRIMARY KEY constraint refused the statement. */
export function isUniqueViolation(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError &&
    (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')
  );
}

/** Another process held the database lock for longer than the busy timeout. */
export function isBusy(error: unknown): boolean {
  return (
    error instanceof Database.SqliteError && (error.code === 'SQLITE_BUSY' || error.code.startsWith('SQLITE_BUSY_'))
  );
}
