/** One schema migration: append only, a released one is never edited. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/**
 * The migrations a database still needs, in order, given the versions it has recorded. A
 * database migrated by a newer release is refused: running old code on it could corrupt data.
 */
export function pendingMigrations(migrations: readonly Migration[], applied: ReadonlySet<number>): Migration[] {
  const newest = Math.max(0, ...applied);
  const known = Math.max(0, ...migrations.map((migration) => migration.version));
  if (newest > known) {
    throw new Error(`the database has schema version ${newest}, newer than this program knows (${known})`);
  }
  return migrations.filter((migration) => !applied.has(migration.version)).sort((a, b) => a.version - b.version);
}
