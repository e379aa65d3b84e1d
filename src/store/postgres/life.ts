import type pg from 'pg';
import type { Micros } from '../../domain/time.js';

/**
 * A new epoch, as SQL: 64 bits of a random UUID (PostgreSQL's strong generator), in hex. An epoch
 * names one life of the database; it need not be secret, only never the same as another's.
 */
export const NEW_EPOCH_SQL = 'substr(md5(gen_random_uuid()::text), 1, 16)';
/** The cluster's identity: new with every initdb, kept by its physical replicas. */
export const SYSTEM_IDENTIFIER_SQL = '(SELECT system_identifier FROM pg_control_system())';
/** The database's identity in its cluster: new with every CREATE DATABASE. */
export const DATABASE_OID_SQL = '(SELECT oid::bigint FROM pg_database WHERE datname = current_database())';

/**
 * Begins a new life when the database is not where its epoch was made: pg_restore (or any copy)
 * put it into another database or cluster. Its sync positions then name changes the restored
 * data may never have had, so the epoch is new (every earlier cursor answers E008) and each
 * account's lost stretch of `updated` times is marked, as `restore` does on SQLite. Runs in
 * migrate()'s transaction, under its lock, so one process of many does it. Answers whether it did.
 */
export async function beginLifeIfMoved(client: pg.ClientBase, now: Micros): Promise<boolean> {
  const exists = await client.query<{ here: string | null }>("SELECT to_regclass('store_identity')::text AS here");
  if (exists.rows[0]?.here === null) return false;
  const moved = await client.query(
    `UPDATE store_identity
     SET epoch = ${NEW_EPOCH_SQL}, legacy_positions = false,
         system_identifier = ${SYSTEM_IDENTIFIER_SQL}, database_oid = ${DATABASE_OID_SQL}
     WHERE (system_identifier, database_oid) IS DISTINCT FROM (${SYSTEM_IDENTIFIER_SQL}, ${DATABASE_OID_SQL})`,
  );
  if (moved.rowCount === 0) return false;
  await client.query(
    `UPDATE accounts SET restore_gap_after = last_updated, restore_gap_before = $1,
       last_updated = GREATEST(last_updated, $1)`,
    [now],
  );
  return true;
}
