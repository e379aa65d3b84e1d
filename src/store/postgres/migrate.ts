import type pg from 'pg';
import { pendingMigrations, type Migration } from '../schema-version.js';
import { MIGRATIONS } from './migrations.js';
import { ensureCommitFunction } from './commit-function.js';
import { Lease } from './lease.js';
import { beginLifeIfMoved } from './life.js';
import { nowMicros, type Micros } from '../../domain/time.js';

/**
 * Any fixed number shared by every process of this service: the advisory lock that makes
 * concurrent migrators take turns. ("TaskSvc1" in ASCII, so it is recognisable in pg_locks.)
 */
const MIGRATION_LOCK_KEY = '6080267876725842737';

/**
 * Applies the migrations this database has not recorded yet, all in one transaction, and begins
 * a new life of the store when the database was restored elsewhere (life.ts). The
 * transaction first takes an advisory lock, so when several processes start at once on an empty
 * database one migrates while the others wait, then find everything applied and do nothing.
 */
export async function applyMigrations(
  pool: pg.Pool,
  migrations: readonly Migration[] = MIGRATIONS,
  now: Micros = nowMicros(),
): Promise<void> {
  const lease = await Lease.take(pool);
  try {
    await lease.client.query('BEGIN');
    // Waiting for another process's migration, or a migration rebuilding a large table, may
    // take longer than an ordinary statement is allowed to.
    await lease.client.query('SET LOCAL statement_timeout = 0');
    await lease.client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await lease.client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (' +
        'version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const applied = await lease.client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const appliedVersions = new Set(applied.rows.map((row) => row.version));
    const pending = pendingMigrations(migrations, appliedVersions);
    for (const migration of pending) {
      await lease.client.query(migration.sql);
      await lease.client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await beginLifeIfMoved(lease.client, now);
    await ensureCommitFunction(lease.client);
    await lease.client.query('COMMIT');
  } catch (error) {
    await lease.rollback(error);
    throw error;
  } finally {
    lease.release();
  }
}
